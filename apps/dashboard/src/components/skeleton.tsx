/** Placeholders the size of what loads, so nothing jumps when the data arrives. */
export function Skeleton({ lines = 1, height }: { lines?: number; height?: 'card' | 'chart' | 'row' }) {
  return (
    <div className="skeleton-group" aria-hidden="true">
      {Array.from({ length: lines }, (_, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: identical placeholders
        <div key={index} className={`skeleton skeleton-${height ?? 'row'}`} />
      ))}
    </div>
  );
}

export function PageSkeleton() {
  return (
    <div aria-busy="true">
      <p className="visually-hidden" role="status">
        Loading…
      </p>
      <div className="skeleton skeleton-title" aria-hidden="true" />
      <Skeleton lines={4} />
    </div>
  );
}
