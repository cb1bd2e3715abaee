import { MAX_WEBHOOK_URL_LENGTH } from '@webpush/plans';
import { type FormEvent, useState } from 'react';
import { ApiError } from '../../api/client.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { ErrorMessage, ErrorPanel } from '../../components/error-panel.js';
import { SecretOnce } from '../../components/secret-once.js';
import { Skeleton } from '../../components/skeleton.js';
import { type MessageKey, useI18n } from '../../i18n/index.js';
import { useCurrentApp } from '../apps/use-apps.js';
import {
  rotateWebhookSecret,
  useRemoveWebhook,
  useResendDelivery,
  useResumeWebhook,
  useSaveWebhook,
  useWebhook,
  useWebhookDeliveries,
  WEBHOOK_EVENTS,
  type WebhookAnswer,
  type WebhookEvent,
} from './use-webhook.js';
import './webhooks.css';

/** IPv4/IPv6 literals and names that can never be a public receiver. */
const PRIVATE_HOST =
  /^(localhost|.*\.localhost|127\.\d+\.\d+\.\d+|10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+|172\.(1[6-9]|2\d|3[01])\.\d+\.\d+|169\.254\.\d+\.\d+|0\.0\.0\.0|\[(::1?|f[cd][0-9a-f:]*|fe[89ab][0-9a-f:]*|::ffff:[0-9a-f.:]*)\])$/i;

/**
 * Which rule a URL the API refused with INVALID_URL broke (the API answers one code for all of them):
 * not a URL, not https, a private address, or a host that does not resolve to a public one.
 */
export function webhookUrlRule(url: string): { key: MessageKey; host?: string } {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return { key: 'webhook.rule.parse' };
  }
  if (parsed.protocol !== 'https:') return { key: 'webhook.rule.https' };
  if (PRIVATE_HOST.test(parsed.hostname)) return { key: 'webhook.rule.private', host: parsed.hostname };
  return { key: 'webhook.rule.resolve', host: parsed.hostname };
}

function WebhookForm({
  current,
  onSecret,
}: {
  current: { url: string; events: WebhookEvent[] } | null;
  onSecret: (secret: string | null) => void;
}) {
  const app = useCurrentApp();
  const { t, rich } = useI18n();
  const [url, setUrl] = useState(current?.url ?? '');
  const [events, setEvents] = useState<WebhookEvent[]>(current?.events ?? [...WEBHOOK_EVENTS]);
  // The secret is in every PUT answer; show it only when it is new (the webhook was just created).
  const save = useSaveWebhook(app.id, (answer) => onSecret(current === null ? answer.webhook.secret : null));
  const toggle = (id: WebhookEvent, on: boolean) =>
    setEvents((list) => (on ? [...list, id] : list.filter((event) => event !== id)));
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ url: url.trim(), events });
  };
  const rule = save.error instanceof ApiError && save.error.code === 'INVALID_URL' ? webhookUrlRule(url) : null;
  return (
    <form onSubmit={onSubmit}>
      <div className="field">
        <label htmlFor="webhook-url">{t('webhook.url')}</label>
        <input
          id="webhook-url"
          name="webhook-url"
          type="url"
          required
          maxLength={MAX_WEBHOOK_URL_LENGTH}
          placeholder="https://example.com/webhooks/push"
          value={url}
          onChange={(event) => {
            if (save.isError) save.reset();
            setUrl(event.target.value);
          }}
          aria-invalid={save.error ? true : undefined}
          aria-describedby="webhook-url-hint webhook-url-error"
        />
        <p className="hint" id="webhook-url-hint">
          {rich('webhook.urlHint', { https: <code>https://</code> })}
        </p>
        {rule ? (
          <p className="error-message" role="alert" id="webhook-url-error" data-code="INVALID_URL">
            {t(rule.key, { host: rule.host ?? '' })}
          </p>
        ) : (
          <ErrorMessage error={save.error} id="webhook-url-error" />
        )}
      </div>
      <fieldset className="scopes">
        <legend>{t('webhook.events')}</legend>
        {WEBHOOK_EVENTS.map((option) => (
          <label key={option} className="scope-option">
            <input
              type="checkbox"
              name="webhook-events"
              value={option}
              checked={events.includes(option)}
              onChange={(event) => toggle(option, event.target.checked)}
            />
            <span>
              <code>{option}</code>
              <span className="hint">{t(`webhook.event.${option}`)}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {save.isSuccess && (
        <p className="success" role="status">
          {t('webhook.saved')}
        </p>
      )}
      <button type="submit" className="button button-primary" disabled={save.isPending || events.length === 0}>
        {save.isPending ? t('common.saving') : current ? t('webhook.save') : t('webhook.create')}
      </button>
    </form>
  );
}

function Deliveries() {
  const app = useCurrentApp();
  const deliveries = useWebhookDeliveries(app.id);
  const [sent, setSent] = useState<string | null>(null);
  const { t, rich, language } = useI18n();
  const dateFormat = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'medium' });
  const resend = useResendDelivery(app.id, setSent);
  return (
    <>
      <h3>{t('webhook.recent')}</h3>
      {deliveries.isPending ? (
        <Skeleton lines={3} />
      ) : deliveries.isError ? (
        <ErrorPanel error={deliveries.error} onRetry={() => void deliveries.refetch()} />
      ) : deliveries.data.deliveries.length === 0 ? (
        <p className="empty">{t('webhook.noDeliveries')}</p>
      ) : (
        <div className="table-wrap">
          <table aria-label={t('webhook.recent')}>
            <thead>
              <tr>
                <th scope="col">{t('webhook.colEvent')}</th>
                <th scope="col">{t('webhook.colStatus')}</th>
                <th scope="col">{t('webhook.colDuration')}</th>
                <th scope="col">{t('webhook.colAnswer')}</th>
                <th scope="col">{t('webhook.colTime')}</th>
                <th scope="col">
                  <span className="visually-hidden">{t('webhook.colActions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {deliveries.data.deliveries.map((attempt) => {
                const ok = attempt.status !== null && attempt.status >= 200 && attempt.status < 300;
                return (
                  <tr key={attempt.id} data-testid="webhook-delivery">
                    <td>
                      <code>{attempt.type}</code>
                      {attempt.messageStatus === 'pending' && <span className="hint"> {t('webhook.retrying')}</span>}
                    </td>
                    <td>
                      <span className={`status ${ok ? 'status-completed' : 'status-failed'}`}>
                        {attempt.status ?? t('webhook.noAnswer')}
                      </span>
                    </td>
                    <td>{attempt.durationMs} ms</td>
                    <td className="answer-snippet">
                      <code className="break-all">{(attempt.response ?? attempt.error ?? '').slice(0, 120)}</code>
                    </td>
                    <td>{dateFormat.format(new Date(attempt.createdAt))}</td>
                    <td className="actions">
                      <button
                        type="button"
                        className="button button-small"
                        aria-label={t('webhook.sendAgainLabel', { type: attempt.type })}
                        disabled={resend.isPending}
                        onClick={() => resend.mutate(attempt.id)}
                      >
                        {t('webhook.sendAgain')}
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <ErrorMessage error={resend.error} />
      {sent && !resend.error && (
        <p className="success" role="status">
          {rich('webhook.queuedAgain', { header: <code>webhook-id</code>, id: sent })}
        </p>
      )}
    </>
  );
}

/** A paused or disabled webhook: why, until when, and the way to resume it now. */
function BreakerBanner({ webhook }: { webhook: WebhookAnswer }) {
  const app = useCurrentApp();
  const { t, dateTime } = useI18n();
  const resume = useResumeWebhook(app.id);
  if (webhook.status === 'active') {
    return resume.isSuccess ? (
      <p className="success" role="status">
        {t('webhook.resumed')}
      </p>
    ) : null;
  }
  const format = (value: string | null) => (value === null ? '' : dateTime(value));
  const error = webhook.lastError?.reason ?? '';
  const disabled = webhook.status === 'disabled';
  return (
    <div
      className={`banner breaker-banner ${disabled ? 'breaker-disabled' : 'breaker-paused'}`}
      role="alert"
      data-testid="webhook-breaker"
    >
      <div>
        <p className="breaker-title">{t(disabled ? 'webhook.disabledTitle' : 'webhook.pausedTitle')}</p>
        <p>
          {disabled
            ? t('webhook.disabled', {
                since: format(webhook.failingSince),
                error,
                time: format(webhook.disabledAt),
              })
            : t('webhook.paused', { count: webhook.failuresInARow, error, time: format(webhook.pausedUntil) })}
        </p>
        <ErrorMessage error={resume.error} />
      </div>
      <button
        type="button"
        className="button button-primary"
        disabled={resume.isPending}
        onClick={() => resume.mutate()}
      >
        {resume.isPending ? t('common.working') : t('webhook.resume')}
      </button>
    </div>
  );
}

/** The app's webhook: endpoint and events, the signing secret once, rotation, removal, recent deliveries. */
export function WebhookSettings() {
  const app = useCurrentApp();
  const webhook = useWebhook(app.id);
  const [secret, setSecret] = useState<string | null>(null);
  const { t, rich } = useI18n();
  const rotate = async () => setSecret(await rotateWebhookSecret(app.id));
  const remove = useRemoveWebhook(app.id, () => setSecret(null));
  return (
    <section className="panel" aria-labelledby="webhook-title">
      <h2 id="webhook-title">{t('webhook.title')}</h2>
      <p className="muted">{rich('webhook.lead', { post: <code>POST</code> })}</p>
      {webhook.isPending ? (
        <Skeleton lines={3} />
      ) : webhook.isError ? (
        <ErrorPanel error={webhook.error} onRetry={() => void webhook.refetch()} />
      ) : (
        <>
          {webhook.data && <BreakerBanner webhook={webhook.data} />}
          {secret && (
            <SecretOnce
              className="webhook-secret-panel"
              warning={rich('webhook.copyNow', { header: <code>webhook-signature</code> })}
              secret={secret}
              testId="webhook-secret"
              copyLabel={t('webhook.copySecret')}
              doneLabel={t('webhook.copied')}
              onDone={() => setSecret(null)}
            />
          )}
          <WebhookForm
            key={webhook.data ? 'existing' : 'new'}
            current={webhook.data}
            onSecret={(next) => next && setSecret(next)}
          />
          {webhook.data && (
            <>
              <div className="button-row">
                <ConfirmButton
                  label={t('webhook.rotate')}
                  title={t('webhook.rotateTitle')}
                  confirmLabel={t('webhook.rotateConfirm')}
                  onConfirm={rotate}
                >
                  <p>{t('webhook.rotateBody')}</p>
                </ConfirmButton>
                <ConfirmButton
                  label={t('webhook.delete')}
                  title={t('webhook.deleteTitle')}
                  confirmLabel={t('webhook.deleteConfirm')}
                  onConfirm={remove}
                >
                  <p>{t('webhook.deleteBody')}</p>
                </ConfirmButton>
              </div>
              <Deliveries />
            </>
          )}
        </>
      )}
    </section>
  );
}
