import { MAX_NAME_LENGTH } from '@webpush/plans';
import { type FormEvent, useState } from 'react';
import { ConfirmButton } from '../../components/confirm-button.js';
import { DataTable, Loaded } from '../../components/data-table.js';
import { ErrorMessage } from '../../components/error-panel.js';
import { Field } from '../../components/field.js';
import { SecretOnce } from '../../components/secret-once.js';
import { type MessageKey, useI18n, usePageTitle } from '../../i18n/index.js';
import { useCurrentApp } from '../apps/use-apps.js';
import { isTryItKey } from '../try-it/use-try-it.js';
import { SCOPES, type Scope, useCreateKey, useKeys, useRevokeKey } from './use-keys.js';

export function KeysPage() {
  const app = useCurrentApp();
  const keys = useKeys(app.id);
  const [scope, setScope] = useState<Scope>('subscribe_only');
  const [name, setName] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const { t, rich, dateTime } = useI18n();
  usePageTitle(`${t('keys.title')} · ${app.name}`);

  const create = useCreateKey(app.id, (answer) => {
    setSecret(answer.secret);
    setName('');
  });
  const revoke = useRevokeKey(app.id);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate({ scope, name: name.trim() });
  };

  return (
    <>
      {secret && (
        <SecretOnce
          title={t('keys.newTitle')}
          warning={t('keys.newWarning')}
          secret={secret}
          testId="new-secret"
          copyLabel={t('keys.copyKey')}
          doneLabel={t('keys.copied')}
          onDone={() => setSecret(null)}
        />
      )}
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
                  <td>
                    {isTryItKey(key.name)
                      ? t('try.keyName')
                      : key.name || <span className="muted">{t('keys.unnamed')}</span>}
                  </td>
                  <td>
                    <code>{key.scope}</code>
                  </td>
                  <td>
                    {key.prefix ? <code className="key-prefix">{key.prefix}…</code> : <span className="muted">—</span>}
                  </td>
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
