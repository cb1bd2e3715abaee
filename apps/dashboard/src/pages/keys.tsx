import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { MAX_NAME_LENGTH } from '@webpush/plans';
import { type FormEvent, useState } from 'react';
import { api, call } from '../api/client.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { CopyButton } from '../components/copy-button.js';
import { DataTable, Loaded } from '../components/data-table.js';
import { ErrorMessage } from '../components/error-panel.js';
import { Field } from '../components/field.js';
import { type MessageKey, useI18n, usePageTitle } from '../i18n/index.js';
import { useCurrentApp } from './app-layout.js';

/** The scopes, lowest first; each has `keys.scope.<id>` and `keys.scope.<id>.explain` messages. */
export const SCOPES = ['subscribe_only', 'notify', 'full'] as const;
type Scope = (typeof SCOPES)[number];

export const keysQuery = (appId: string) => ({
  queryKey: ['keys', appId],
  queryFn: () => call(api.GET('/api/v1/apps/{appId}/keys', { params: { path: { appId } } })),
});

function NewSecret({ secret, onDone }: { secret: string; onDone: () => void }) {
  const { t } = useI18n();
  return (
    <section className="panel secret-panel" aria-labelledby="secret-title">
      <h2 id="secret-title">{t('keys.newTitle')}</h2>
      <p className="warning" role="alert">
        {t('keys.newWarning')}
      </p>
      <div className="key-row">
        <code className="break-all" data-testid="new-secret">
          {secret}
        </code>
        <CopyButton text={secret} label={t('keys.copyKey')} />
      </div>
      <button type="button" className="button" onClick={onDone}>
        {t('keys.copied')}
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
  const { t, rich, dateTime } = useI18n();
  usePageTitle(`${t('keys.title')} · ${app.name}`);

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
        <h2>{t('keys.createTitle')}</h2>
        <form onSubmit={onSubmit}>
          <fieldset className="scopes">
            <legend>{t('keys.scope')}</legend>
            {SCOPES.map((option) => (
              <label key={option} className="scope-option">
                <input
                  type="radio"
                  name="scope"
                  value={option}
                  checked={scope === option}
                  onChange={() => setScope(option)}
                />
                <span>
                  <strong>{t(`keys.scope.${option}` as MessageKey)}</strong> <code>{option}</code>
                  <span className="hint">{t(`keys.scope.${option}.explain` as MessageKey)}</span>
                </span>
              </label>
            ))}
          </fieldset>
          <Field
            id="key-name"
            label={t('keys.name')}
            maxLength={MAX_NAME_LENGTH}
            placeholder={t('keys.namePlaceholder')}
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
          <ErrorMessage error={create.error} />
          <button type="submit" className="button button-primary" disabled={create.isPending}>
            {create.isPending ? t('keys.creating') : t('keys.create')}
          </button>
        </form>
      </section>
      <section className="panel">
        <h2>{t('keys.list')}</h2>
        <Loaded
          query={keys}
          lines={3}
          isEmpty={(data) => data.keys.length === 0}
          empty={<p className="empty">{t('keys.empty')}</p>}
        >
          {(data) => (
            <DataTable
              columns={[
                t('keys.colName'),
                t('keys.colScope'),
                t('keys.colPrefix'),
                t('keys.colCreated'),
                t('keys.colLastUsed'),
              ]}
              actions={t('keys.colActions')}
            >
              {data.keys.map((key) => (
                <tr key={key.id}>
                  <td>{key.name || <span className="muted">{t('keys.unnamed')}</span>}</td>
                  <td>
                    <code>{key.scope}</code>
                  </td>
                  <td>{key.prefix ? <code>{key.prefix}…</code> : <span className="muted">—</span>}</td>
                  <td>{dateTime(key.createdAt)}</td>
                  <td>
                    {key.lastUsedAt ? dateTime(key.lastUsedAt) : <span className="muted">{t('common.never')}</span>}
                  </td>
                  <td className="actions">
                    <ConfirmButton
                      label={t('keys.revoke')}
                      ariaLabel={t('keys.revokeLabel', { name: key.name || key.id })}
                      title={t('keys.revokeTitle')}
                      confirmLabel={t('keys.revokeConfirm')}
                      onConfirm={() => revoke(key.id)}
                    >
                      <p>
                        {rich('keys.revokeBody', {
                          scope: <code>{key.scope}</code>,
                          name: <strong className="break-all">{key.name || key.id}</strong>,
                          code: <code>INVALID_API_KEY</code>,
                        })}
                      </p>
                    </ConfirmButton>
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
        </Loaded>
      </section>
    </>
  );
}
