import type { ReactNode } from 'react';
import { CopyButton } from './copy-button.js';

interface SecretOnceProps {
  secret: string;
  /** Why to copy it now: the API never shows this secret again. */
  warning: ReactNode;
  testId: string;
  copyLabel: string;
  doneLabel: string;
  onDone: () => void;
  /** A panel of its own with this heading; without one, a box inside the section that made the secret. */
  title?: string;
  className?: string;
}

/**
 * A secret the API answers once (an API key, the identity secret, a webhook's signing secret). It
 * lives only in the caller's state: "copied" drops it, and nothing stores it.
 */
export function SecretOnce({
  secret,
  warning,
  testId,
  copyLabel,
  doneLabel,
  onDone,
  title,
  className,
}: SecretOnceProps) {
  const body = (
    <>
      <p className="warning" role="alert">
        {warning}
      </p>
      <div className="key-row">
        <code className="break-all" data-testid={testId}>
          {secret}
        </code>
        <CopyButton text={secret} label={copyLabel} />
      </div>
      <button type="button" className="button" onClick={onDone}>
        {doneLabel}
      </button>
    </>
  );
  if (title === undefined) return <div className={['secret-panel', className].filter(Boolean).join(' ')}>{body}</div>;
  return (
    <section className="panel secret-panel" aria-labelledby="secret-title">
      <h2 id="secret-title">{title}</h2>
      {body}
    </section>
  );
}
