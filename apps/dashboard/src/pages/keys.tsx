import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { api, call } from '../api/client.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { CopyButton } from '../components/copy-button.js';
import { ErrorMessage, ErrorPanel } from '../components/error-panel.js';
import { Field } from '../components/field.js';
import { Skeleton } from '../components/skeleton.js';
import { useCurrentApp } from './app-layout.js';

export const SCOPES = [
  {
    id: 'subscribe_only',
    label: 'Subscribe only',
    explain: 'For your web pages: adds and removes browser subscriptions, nothing else.',
  },
  { id: 'notify', label: 'Notify', explain: 'For your servers: sends notifications and reads their progress.' },
  { id: 'full', label: 'Full', explain: 'Everything Notify can do, plus test notifications to one subscription.' },
] as const;
type Scope = (typeof SCOPES)[number]['id'];

export const keysQuery = (appId: string) => ({
  queryKey: ['keys', appId],
  queryFn: () => call(api.GET('/api/v1/apps/{appId}/keys', { params: { path: { appId } } })),
});

const dateFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });

function NewSecret({ secret, onDone }: { secret: string; onDone: () => void }) {
  return (
    <section className="panel secret-panel" aria-labelledby="secret-title">
      <h2 id="secret-title">Your new API key</h2>
      <p className="warning" role="alert">
        Copy it now: it will not be shown again. We keep only a hash of it.
      </p>
      <div className="key-row">
        <code className="break-all" data-testid="new-secret">
          {secret}
        </code>
        <CopyButton text={secret} label="Copy key" />
      </div>
      <button type="button" className="button" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}

export function KeysPage() {
  const app = useCurrentApp();
  const keys = useQuery(keysQuery(app.id));
  const queryClient = useQueryClient();
  const [scope, setScope] = useState<Scope>('subscribe_only');
  const [name, setName] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  useEffect(() => {
    document.title = `API keys · ${app.name} · Web Push`;
  }, [app.name]);

  const create = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/apps/{appId}/keys', {
          params: { path: { appId: app.id } },
          body: { scope, ...(name.trim() ? { name: name.trim() } : {}) },
        }),
      ),
    onSuccess: async (answer) => {
      setSecret(answer.secret);
      setName('');
      await queryClient.invalidateQueries({ queryKey: ['keys', app.id] });
    },
  });
  const revoke = async (keyId: string) => {
    await call(api.DELETE('/api/v1/apps/{appId}/keys/{keyId}', { params: { path: { appId: app.id, keyId } } }));
    await queryClient.invalidateQueries({ queryKey: ['keys', app.id] });
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };

  return (
    <>
      {secret && <NewSecret secret={secret} onDone={() => setSecret(null)} />}
      <section className="panel">
        <h2>Create an API key</h2>
        <form onSubmit={onSubmit}>
          <fieldset className="scopes">
            <legend>Scope</legend>
            {SCOPES.map((option) => (
              <label key={option.id} className="scope-option">
                <input
                  type="radio"
                  name="scope"
                  value={option.id}
                  checked={scope === option.id}
                  onChange={() => setScope(option.id)}
                />
                <span>
                  <strong>{option.label}</strong> <code>{option.id}</code>
                  <span className="hint">{option.explain}</span>
                </span>
              </label>
            ))}
          </fieldset>
          <Field
            id="key-name"
            label="Name (optional)"
            maxLength={200}
            placeholder="Production web server"
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
          <ErrorMessage error={create.error} />
          <button type="submit" className="button button-primary" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create key'}
          </button>
        </form>
      </section>
      <section className="panel">
        <h2>Keys</h2>
        {keys.isPending ? (
          <Skeleton lines={3} />
        ) : keys.isError ? (
          <ErrorPanel error={keys.error} onRetry={() => void keys.refetch()} />
        ) : keys.data.keys.length === 0 ? (
          <p className="empty">No keys yet.</p>
        ) : (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Scope</th>
                  <th scope="col">Created</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.data.keys.map((key) => (
                  <tr key={key.id}>
                    <td>{key.name || <span className="muted">Unnamed</span>}</td>
                    <td>
                      <code>{key.scope}</code>
                    </td>
                    <td>{dateFormat.format(new Date(key.createdAt))}</td>
                    <td className="actions">
                      <ConfirmButton
                        label="Revoke"
                        ariaLabel={`Revoke key ${key.name || key.id}`}
                        title="Revoke this key?"
                        confirmLabel="Revoke key"
                        onConfirm={() => revoke(key.id)}
                      >
                        <p>
                          Requests with the <code>{key.scope}</code> key <strong>{key.name || key.id}</strong> will
                          answer <code>INVALID_API_KEY</code> from now on. This cannot be undone.
                        </p>
                      </ConfirmButton>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
