import { Link } from 'react-router';
import { ApiError } from '../api/client.js';

const PLAN_LIMIT_CODES = new Set(['PLAN_LIMIT_EXCEEDED', 'MONTHLY_LIMIT_EXCEEDED', 'SUBSCRIBER_LIMIT_EXCEEDED']);

/** The API's message as it comes (Japanese), with the way on for plan limits. */
export function ErrorMessage({ error, id }: { error: unknown; id?: string }) {
  if (!error) return null;
  const message = error instanceof Error ? error.message : 'Something went wrong.';
  const code = error instanceof ApiError ? error.code : null;
  return (
    <p className="error-message" role="alert" id={id}>
      <span lang={error instanceof ApiError ? 'ja' : 'en'}>{message}</span>
      {code && <span className="error-code"> ({code})</span>}
      {code && PLAN_LIMIT_CODES.has(code) && (
        <>
          {' '}
          <Link to="/pricing">See the plans and how to upgrade</Link>
        </>
      )}
    </p>
  );
}

/** A failed load: what went wrong and a way to try again, never a blank page. */
export function ErrorPanel({ error, onRetry, title }: { error: unknown; onRetry: () => void; title?: string }) {
  return (
    <section className="panel error-panel" aria-live="polite">
      <h2>{title ?? 'This could not be loaded'}</h2>
      <ErrorMessage error={error} />
      <button type="button" className="button" onClick={onRetry}>
        Retry
      </button>
    </section>
  );
}
