import { useMutation, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { api, call } from '../api/client.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { CopyButton } from '../components/copy-button.js';
import { ErrorMessage } from '../components/error-panel.js';
import { Field } from '../components/field.js';
import { useCurrentApp } from './app-layout.js';
import { PushFormatSettings } from './push-format-settings.js';
import { WebhookSettings } from './webhook-settings.js';

/** CONTRACT: at most 20 allowed origins. */
export const MAX_ORIGINS = 20;

/** One origin a line (or comma separated); blank lines dropped. */
export const originsOf = (text: string) =>
  text
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter(Boolean);

/** What the browser can tell before asking: `https://host[:port]`, nothing more (the API has the last word). */
export function originProblem(origins: string[]): string | null {
  if (origins.length > MAX_ORIGINS) return `At most ${MAX_ORIGINS} origins.`;
  for (const origin of origins) {
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      return `“${origin}” is not an origin like https://example.com.`;
    }
    if (parsed.origin !== origin)
      return `“${origin}” is not an origin: scheme, host and port only, e.g. ${parsed.origin}.`;
  }
  return null;
}

function Rename() {
  const app = useCurrentApp();
  const queryClient = useQueryClient();
  const [name, setName] = useState(app.name);
  const rename = useMutation({
    mutationFn: () =>
      call(api.PATCH('/api/v1/apps/{appId}', { params: { path: { appId: app.id } }, body: { name: name.trim() } })),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: ['app', app.id] });
      await queryClient.invalidateQueries({ queryKey: ['apps'] });
    },
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    rename.mutate();
  };
  return (
    <section className="panel">
      <h2>Name</h2>
      <form onSubmit={onSubmit}>
        <Field
          id="app-name"
          label="App name"
          required
          maxLength={200}
          value={name}
          onChange={(event) => setName(event.target.value)}
          error={rename.error}
        />
        {rename.isSuccess && (
          <p className="success" role="status">
            Saved.
          </p>
        )}
        <button type="submit" className="button button-primary" disabled={rename.isPending}>
          {rename.isPending ? 'Saving…' : 'Rename'}
        </button>
      </form>
    </section>
  );
}

function AllowedOrigins() {
  const app = useCurrentApp();
  const queryClient = useQueryClient();
  const [text, setText] = useState(app.allowedOrigins.join('\n'));
  const [problem, setProblem] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (allowedOrigins: string[]) =>
      call(api.PATCH('/api/v1/apps/{appId}', { params: { path: { appId: app.id } }, body: { allowedOrigins } })),
    onSuccess: async (answer) => {
      setText(answer.app.allowedOrigins.join('\n'));
      await queryClient.invalidateQueries({ queryKey: ['app', app.id] });
    },
  });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    const origins = originsOf(text);
    const found = originProblem(origins);
    setProblem(found);
    if (!found) save.mutate(origins);
  };
  const invalid = Boolean(problem || save.error);
  return (
    <section className="panel">
      <h2>Allowed origins</h2>
      <p className="muted">
        The pages allowed to use this app’s <code>subscribe_only</code> keys. Empty: any origin. Other origins (or
        requests without an <code>Origin</code> header) get <code>403 ORIGIN_NOT_ALLOWED</code>.
      </p>
      <form onSubmit={onSubmit}>
        <div className="field">
          <label htmlFor="allowed-origins">Origins, one a line</label>
          <textarea
            id="allowed-origins"
            name="allowed-origins"
            rows={4}
            placeholder="https://example.com"
            value={text}
            onChange={(event) => setText(event.target.value)}
            aria-invalid={invalid ? true : undefined}
            aria-describedby="allowed-origins-hint allowed-origins-error"
          />
          <p className="hint" id="allowed-origins-hint">
            Up to {MAX_ORIGINS}, e.g. <code>https://www.example.com</code> or <code>http://localhost:5173</code>.
          </p>
          {problem ? (
            <p className="error-message" role="alert" id="allowed-origins-error">
              {problem}
            </p>
          ) : (
            <ErrorMessage error={save.error} id="allowed-origins-error" />
          )}
        </div>
        {save.isSuccess && !problem && (
          <p className="success" role="status">
            Saved: {save.data.app.allowedOrigins.length === 0 ? 'any origin' : save.data.app.allowedOrigins.join(', ')}.
          </p>
        )}
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save origins'}
        </button>
      </form>
    </section>
  );
}

function IdentitySecret() {
  const app = useCurrentApp();
  const [secret, setSecret] = useState<string | null>(null);
  // Errors show in the confirm dialog.
  const create = async () => {
    const answer = await call(
      api.POST('/api/v1/apps/{appId}/identity-secret', { params: { path: { appId: app.id } } }),
    );
    setSecret(answer.secret);
  };
  return (
    <section className="panel" aria-labelledby="identity-title">
      <h2 id="identity-title">Identity secret</h2>
      <p className="muted">
        Your server signs each user id (<code>uid</code>) with it, so a page using a <code>subscribe_only</code> key
        cannot claim somebody else’s uid. The signature is the lowercase hex HMAC-SHA-256 of the uid:
      </p>
      <pre className="snippet">
        <code>{`import { createHmac } from 'node:crypto';
const uidSignature = createHmac('sha256', process.env.WEBPUSH_IDENTITY_SECRET).update(user.id).digest('hex');
// in the page: WebPush.subscribe({ baseUrl, apiKey, uid: user.id, uidSignature, tags: { lang: 'ja' } })`}</code>
      </pre>
      {secret && (
        <div className="secret-panel">
          <p className="warning" role="alert">
            Copy it now: it will not be shown again. Keep it on your server only.
          </p>
          <div className="key-row">
            <code className="break-all" data-testid="identity-secret">
              {secret}
            </code>
            <CopyButton text={secret} label="Copy secret" />
          </div>
          <button type="button" className="button" onClick={() => setSecret(null)}>
            I have copied it
          </button>
        </div>
      )}
      <ConfirmButton
        label="Create or rotate the identity secret"
        title="Create a new identity secret?"
        confirmLabel="Create new secret"
        onConfirm={create}
      >
        <p>
          If this app already has one, the old secret stops working at once: subscribes with a <code>uidSignature</code>{' '}
          made with it get <code>403 INVALID_UID_SIGNATURE</code> until your server uses the new one.
        </p>
      </ConfirmButton>
    </section>
  );
}

function VapidKey() {
  const app = useCurrentApp();
  const queryClient = useQueryClient();
  const [rotated, setRotated] = useState(false);
  // Errors show in the confirm dialog.
  const rotate = async () => {
    await call(api.POST('/api/v1/apps/{appId}/vapid-key/rotate', { params: { path: { appId: app.id } } }));
    setRotated(true);
    await queryClient.invalidateQueries({ queryKey: ['app', app.id] });
    await queryClient.invalidateQueries({ queryKey: ['apps'] });
  };
  return (
    <section className="panel" aria-labelledby="vapid-title">
      <h2 id="vapid-title">VAPID key</h2>
      <p className="muted">The public key browsers subscribe with (their applicationServerKey):</p>
      <div className="key-row">
        <code className="break-all" data-testid="vapid-public-key">
          {app.vapidPublicKey}
        </code>
        <CopyButton text={app.vapidPublicKey} label="Copy key" />
      </div>
      {rotated && (
        <p className="success" role="status">
          Rotated. New subscriptions use the new key.
        </p>
      )}
      <ConfirmButton
        label="Rotate VAPID key"
        title="Rotate this app’s VAPID key?"
        confirmLabel="Rotate key"
        onConfirm={rotate}
      >
        <p>
          A new key pair replaces the current one for new subscriptions. Existing subscribers keep receiving your
          notifications: each is still signed with the key it subscribed with. The SDK moves each browser to the new key
          the next time its page calls <code>subscribe()</code> or the browser renews its subscription; the old key is
          deleted once no active subscriber uses it. Rotate when the private key may have leaked.
        </p>
      </ConfirmButton>
    </section>
  );
}

export function SettingsPage() {
  const app = useCurrentApp();
  useEffect(() => {
    document.title = `Settings · ${app.name} · Web Push`;
  }, [app.name]);
  return (
    <>
      <Rename />
      <AllowedOrigins />
      <PushFormatSettings />
      <IdentitySecret />
      <VapidKey />
      <WebhookSettings />
    </>
  );
}
