import { MAX_ALLOWED_ORIGINS, MAX_NAME_LENGTH } from '@webpush/plans';
import { type FormEvent, useState } from 'react';
import { ConfirmButton } from '../../components/confirm-button.js';
import { CopyButton } from '../../components/copy-button.js';
import { ErrorMessage } from '../../components/error-panel.js';
import { Field, type Problem } from '../../components/field.js';
import { SecretOnce } from '../../components/secret-once.js';
import { useI18n, usePageTitle } from '../../i18n/index.js';
import { useCurrentApp } from '../apps/use-apps.js';
import { WebhookSettings } from '../webhooks/webhook-settings.js';
import { DeleteApp } from './delete-app.js';
import { DeliverySettings } from './delivery-settings.js';
import { PushFormatSettings } from './push-format-settings.js';
import { createIdentitySecret, useRotateVapidKey, useUpdateApp } from './use-app-settings.js';
import './settings.css';

/** One origin a line (or comma separated); blank lines dropped. */
export const originsOf = (text: string) =>
  text
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter(Boolean);

/** What the browser can tell before asking: `https://host[:port]`, nothing more (the API has the last word). */
export function originProblem(origins: string[]): Problem | null {
  if (origins.length > MAX_ALLOWED_ORIGINS)
    return { key: 'settings.tooManyOrigins', values: { max: MAX_ALLOWED_ORIGINS } };
  for (const origin of origins) {
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      return { key: 'settings.notOrigin', values: { origin } };
    }
    if (parsed.origin !== origin)
      return { key: 'settings.notOriginOnly', values: { origin, suggestion: parsed.origin } };
  }
  return null;
}

function Rename() {
  const app = useCurrentApp();
  const [name, setName] = useState(app.name);
  const { t } = useI18n();
  const rename = useUpdateApp(app.id);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    rename.mutate({ name: name.trim() });
  };
  return (
    <section className="panel">
      <h2>{t('settings.nameTitle')}</h2>
      <form onSubmit={onSubmit}>
        <Field
          id="app-name"
          label={t('settings.appName')}
          required
          maxLength={MAX_NAME_LENGTH}
          value={name}
          onChange={(event) => {
            if (rename.isError) rename.reset();
            setName(event.target.value);
          }}
          error={rename.error}
        />
        {rename.isSuccess && (
          <p className="success" role="status">
            {t('common.saved')}
          </p>
        )}
        <button type="submit" className="button button-primary" disabled={rename.isPending}>
          {rename.isPending ? t('common.saving') : t('settings.rename')}
        </button>
      </form>
    </section>
  );
}

function AllowedOrigins() {
  const app = useCurrentApp();
  const [text, setText] = useState(app.allowedOrigins.join('\n'));
  const [problem, setProblem] = useState<Problem | null>(null);
  const { t, rich } = useI18n();
  const save = useUpdateApp(app.id, (answer) => setText(answer.app.allowedOrigins.join('\n')));
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const origins = originsOf(text);
    const found = originProblem(origins);
    setProblem(found);
    if (!found) save.mutate({ allowedOrigins: origins });
  };
  const invalid = Boolean(problem || save.error);
  return (
    <section className="panel">
      <h2>{t('settings.originsTitle')}</h2>
      <p className="muted">
        {rich('settings.originsLead', {
          scope: <code>subscribe_only</code>,
          header: <code>Origin</code>,
          error: <code>403 ORIGIN_NOT_ALLOWED</code>,
        })}
      </p>
      <form onSubmit={onSubmit}>
        <div className="field">
          <label htmlFor="allowed-origins">{t('settings.originsLabel')}</label>
          <textarea
            id="allowed-origins"
            name="allowed-origins"
            rows={4}
            placeholder="https://example.com"
            value={text}
            onChange={(event) => {
              setProblem(null);
              if (save.isError) save.reset();
              setText(event.target.value);
            }}
            aria-invalid={invalid ? true : undefined}
            aria-describedby="allowed-origins-hint allowed-origins-error"
          />
          <p className="hint" id="allowed-origins-hint">
            {rich('settings.originsHint', {
              max: MAX_ALLOWED_ORIGINS,
              example1: <code>https://www.example.com</code>,
              example2: <code>http://localhost:5173</code>,
            })}
          </p>
          {problem ? (
            <p className="error-message" role="alert" id="allowed-origins-error">
              {t(problem.key, problem.values)}
            </p>
          ) : (
            <ErrorMessage error={save.error} id="allowed-origins-error" />
          )}
        </div>
        {originsOf(text).length > 0 && !originsOf(text).includes(window.location.origin) && (
          <p className="hint warning" data-testid="dashboard-origin-warning">
            {rich('settings.dashboardOrigin', { origin: <code>{window.location.origin}</code> })}
          </p>
        )}
        {save.isSuccess && !problem && (
          <p className="success" role="status">
            {save.data.app.allowedOrigins.length === 0
              ? t('settings.savedAny')
              : t('settings.savedList', { origins: save.data.app.allowedOrigins.join(', ') })}
          </p>
        )}
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          {save.isPending ? t('common.saving') : t('settings.saveOrigins')}
        </button>
      </form>
    </section>
  );
}

function IdentitySecret() {
  const app = useCurrentApp();
  const [secret, setSecret] = useState<string | null>(null);
  const { t, rich } = useI18n();
  // Errors show in the confirm dialog.
  const create = async () => setSecret(await createIdentitySecret(app.id));
  return (
    <section className="panel" aria-labelledby="identity-title">
      <h2 id="identity-title">{t('settings.identityTitle')}</h2>
      <p className="muted">
        {rich('settings.identityLead', { uid: <code>uid</code>, scope: <code>subscribe_only</code> })}
      </p>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling code block must be reachable by keyboard */}
      <pre className="snippet" tabIndex={0}>
        <code>{`import { createHmac } from 'node:crypto';
const uidSignature = createHmac('sha256', process.env.WEBPUSH_IDENTITY_SECRET).update(user.id).digest('hex');
// in the page: WebPush.subscribe({ baseUrl, apiKey, uid: user.id, uidSignature, tags: { lang: 'ja' } })`}</code>
      </pre>
      {secret && (
        <SecretOnce
          warning={t('settings.identityCopyNow')}
          secret={secret}
          testId="identity-secret"
          copyLabel={t('settings.copySecret')}
          doneLabel={t('settings.copied')}
          onDone={() => setSecret(null)}
        />
      )}
      <ConfirmButton
        label={t('settings.identityCreate')}
        title={t('settings.identityConfirmTitle')}
        confirmLabel={t('settings.identityConfirm')}
        onConfirm={create}
      >
        <p>
          {rich('settings.identityBody', {
            signature: <code>uidSignature</code>,
            error: <code>403 INVALID_UID_SIGNATURE</code>,
          })}
        </p>
      </ConfirmButton>
    </section>
  );
}

function VapidKey() {
  const app = useCurrentApp();
  const [rotated, setRotated] = useState(false);
  const { t, rich } = useI18n();
  const rotate = useRotateVapidKey(app.id, () => setRotated(true));
  return (
    <section className="panel" aria-labelledby="vapid-title">
      <h2 id="vapid-title">{t('settings.vapidTitle')}</h2>
      <p className="muted">{t('settings.vapidLead')}</p>
      <div className="key-row">
        <code className="break-all" data-testid="vapid-public-key">
          {app.vapidPublicKey}
        </code>
        <CopyButton text={app.vapidPublicKey} label={t('settings.vapidCopy')} />
      </div>
      {rotated && (
        <p className="success" role="status">
          {t('settings.vapidRotated')}
        </p>
      )}
      <ConfirmButton
        label={t('settings.vapidRotate')}
        title={t('settings.vapidRotateTitle')}
        confirmLabel={t('settings.vapidRotateConfirm')}
        onConfirm={rotate}
      >
        <p>{rich('settings.vapidRotateBody', { subscribe: <code>subscribe()</code> })}</p>
      </ConfirmButton>
    </section>
  );
}

export function SettingsPage() {
  const app = useCurrentApp();
  const { t } = useI18n();
  usePageTitle(`${t('settings.title')} · ${app.name}`);
  return (
    <>
      <Rename />
      <AllowedOrigins />
      <PushFormatSettings />
      <DeliverySettings />
      <IdentitySecret />
      <VapidKey />
      <WebhookSettings />
      <DeleteApp />
    </>
  );
}
