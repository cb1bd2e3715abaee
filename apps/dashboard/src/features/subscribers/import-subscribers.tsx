import { type FormEvent, useId, useRef, useState } from 'react';
import { ErrorMessage } from '../../components/error-panel.js';
import { type MessageKey, useI18n } from '../../i18n/index.js';
import { useImportSubscribers } from './use-import-subscribers.js';

/** At most this many line numbers per refusal code; the count says the rest. */
const LINES_SHOWN = 10;

/** Takes a subscriber file (JSON lines or CSV), checks it whole, then imports it in batches. */
export function ImportSubscribers({ appId }: { appId: string }) {
  const { t, rich, number } = useI18n();
  const { state, run, busy } = useImportSubscribers(appId);
  const input = useRef<HTMLInputElement>(null);
  const [noFile, setNoFile] = useState(false);
  const hintId = useId();

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const file = input.current?.files?.[0];
    setNoFile(!file);
    if (file) void run(file);
  };

  return (
    <section className="import-subscribers" aria-labelledby={`${hintId}-title`}>
      <h3 id={`${hintId}-title`}>{t('import.title')}</h3>
      <p className="muted" id={hintId}>
        {rich('import.lead', {
          jsonl: <code>PushSubscription.toJSON()</code>,
          csv: <code>endpoint,p256dh,auth[,uid,tags]</code>,
        })}
      </p>
      <form className="import-form" onSubmit={submit}>
        <div className="field">
          <label htmlFor={`${hintId}-file`}>{t('import.file')}</label>
          <input
            id={`${hintId}-file`}
            ref={input}
            type="file"
            accept=".jsonl,.ndjson,.json,.csv,.txt,application/x-ndjson,text/csv"
            aria-describedby={hintId}
            disabled={busy}
          />
        </div>
        <button type="submit" className="button" disabled={busy}>
          {t('import.start')}
        </button>
      </form>
      {noFile && (
        <p className="error-message" role="alert">
          {t('import.noFile')}
        </p>
      )}
      {state.phase === 'reading' && (
        <p className="hint" role="status">
          {t('import.reading')}
        </p>
      )}
      {state.phase === 'malformed' && (
        <p className="error-message" role="alert" data-line={state.error.line}>
          {t(`import.problem.${state.error.problem}` as MessageKey, { line: state.error.line })}
        </p>
      )}
      {(state.phase === 'sending' || state.phase === 'failed') && (
        <div className="import-progress">
          <progress value={state.sent} max={state.total} aria-label={t('import.progressLabel')} />
          <p role="status">{t('import.progress', { sent: state.sent, total: state.total })}</p>
        </div>
      )}
      {state.phase === 'failed' && (
        <>
          <ErrorMessage error={state.error} />
          <p>{t('import.stopped', { sent: state.sent, total: state.total })}</p>
        </>
      )}
      {state.phase === 'done' && (
        <div role="status" data-testid="import-summary">
          <p className="success">
            {t('import.done', {
              imported: state.imported,
              updated: state.updated,
              refused: state.refusals.reduce((sum, refusal) => sum + refusal.lines.length, 0),
            })}
          </p>
          {state.refusals.length > 0 && (
            <ul className="import-refusals">
              {state.refusals.map(({ code, lines }) => (
                <li key={code}>
                  <code>{code}</code>{' '}
                  {t('import.refusedLines', {
                    count: lines.length,
                    lines:
                      lines.slice(0, LINES_SHOWN).map(number).join(', ') + (lines.length > LINES_SHOWN ? ', …' : ''),
                  })}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}
