import { useState } from 'react';

/**
 * A picture from the customer's own site (an icon, a banner): while it loads or when it cannot be
 * loaded (a typo, a page that is not an image, a site that refuses) the box shows `fallback` in its
 * place, never the browser's broken-image symbol.
 */
export function RemoteImage({
  src,
  className,
  fallback,
  onFailed,
}: {
  src: string;
  className: string;
  /** What the box says instead; empty for a box too small for words (the caller says it elsewhere). */
  fallback: string;
  onFailed?: (src: string) => void;
}) {
  const [failed, setFailed] = useState<string | null>(null);
  if (failed === src) {
    return (
      <span className={`${className} image-fallback`} data-testid="image-fallback">
        {fallback}
      </span>
    );
  }
  return (
    <img
      src={src}
      alt=""
      className={className}
      onError={() => {
        setFailed(src);
        onFailed?.(src);
      }}
    />
  );
}
