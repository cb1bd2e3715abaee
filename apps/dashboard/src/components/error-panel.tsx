import { MAX_BATCH_ENDPOINTS } from '@webpush/plans';
import { Link } from 'react-router';
import { ApiError, NetworkError } from '../api/client.js';
import { catalogues, type I18n, type MessageKey, useI18n } from '../i18n/index.js';

/** A problem the dashboard itself found (before or after asking the API): shown as its message. */
export class LocalError extends Error {
  override readonly name = 'LocalError';
  constructor(
    readonly key: MessageKey,
    readonly values?: Record<string, string | number>,
  ) {
    super(key);
  }
}

/** The figures some error messages state ({maxEndpoints}): the API's own limits. */
const ERROR_VALUES = { maxEndpoints: MAX_BATCH_ENDPOINTS };

const PLAN_LIMIT_CODES = new Set(['PLAN_LIMIT_EXCEEDED', 'MONTHLY_LIMIT_EXCEEDED', 'SUBSCRIBER_LIMIT_EXCEEDED']);

/**
 * What went wrong, in the page's language: the catalogue's message for the API's `code`. The API's
 * own Japanese `error` is shown only for a code the catalogue does not know (marked `lang="ja"`).
 */
export function describeError(i18n: I18n, error: unknown): { text: string; lang: string } {
  if (error instanceof LocalError) return { text: i18n.t(error.key, error.values), lang: i18n.language };
  if (error instanceof ApiError) {
    const key = `error.code.${error.code}`;
    if (key in catalogues.en) return { text: i18n.t(key as MessageKey, ERROR_VALUES), lang: i18n.language };
    if (error.code.startsWith('HTTP_'))
      return { text: i18n.t('error.http', { status: String(error.status) }), lang: i18n.language };
    return { text: error.message, lang: 'ja' };
  }
  if (error instanceof NetworkError) return { text: i18n.t('error.network'), lang: i18n.language };
  return { text: i18n.t('error.generic'), lang: i18n.language };
}

/** The error in the page's language, with the way on for plan limits. */
export function ErrorMessage({ error, id }: { error: unknown; id?: string }) {
  const i18n = useI18n();
  if (!error) return null;
  const { text, lang } = describeError(i18n, error);
  const code = error instanceof ApiError ? error.code : null;
  return (
    <p className="error-message" role="alert" id={id} data-code={code ?? undefined}>
      <span lang={lang === i18n.language ? undefined : lang}>{text}</span>
      {/* The code, small: what to search the docs for, or quote to support. */}
      {code && !code.startsWith('HTTP_') && <code className="error-code">{code}</code>}
      {code && PLAN_LIMIT_CODES.has(code) && (
        <>
          {' '}
          <Link to="/pricing">{i18n.t('error.seePlans')}</Link>
        </>
      )}
    </p>
  );
}

/** A failed load: what went wrong and a way to try again, never a blank page. */
export function ErrorPanel({ error, onRetry, title }: { error: unknown; onRetry?: () => void; title?: string }) {
  const { t } = useI18n();
  return (
    <section className="panel error-panel" aria-live="polite">
      <h2>{title ?? t('error.loadFailed')}</h2>
      <ErrorMessage error={error} />
      {onRetry && (
        <button type="button" className="button" onClick={onRetry}>
          {t('common.retry')}
        </button>
      )}
    </section>
  );
}
