import { MAX_NAME_LENGTH } from '@webpush/plans';
import { type FormEvent, useState } from 'react';
import { ConfirmButton } from '../../components/confirm-button.js';
import { DataTable, Loaded } from '../../components/data-table.js';
import { ErrorMessage } from '../../components/error-panel.js';
import { Field } from '../../components/field.js';
import { SecretOnce } from '../../components/secret-once.js';
import { useI18n } from '../../i18n/index.js';
import { useAccessTokens, useCreateAccessToken, useRevokeAccessToken } from './use-security.js';

/** Personal access tokens (`wpt_…`): made here, shown once, listed with their last use, revoked at once. */
export function AccessTokens() {
  const { t, rich, dateTime } = useI18n();
  const tokens = useAccessTokens();
  const [name, setName] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const create = useCreateAccessToken((made) => {
    setSecret(made);
    setName('');
  });
  const revoke = useRevokeAccessToken();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(name.trim());
  };
  return (
    <section className="panel" aria-labelledby="tokens-title">
      <h3 id="tokens-title">{t('tokens.title')}</h3>
      <p className="hint">{rich('tokens.lead', { apps: <code>/api/v1/apps/**</code> })}</p>
      {secret && (
        <SecretOnce
          warning={t('tokens.newWarning')}
          secret={secret}
          testId="new-token"
          copyLabel={t('tokens.copy')}
          doneLabel={t('tokens.copied')}
          onDone={() => setSecret(null)}
        />
      )}
      <form onSubmit={submit} className="inline-form token-form">
        <Field
          id="token-name"
          label={t('tokens.name')}
          required
          maxLength={MAX_NAME_LENGTH}
          placeholder={t('tokens.namePlaceholder')}
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          {create.isPending ? t('common.working') : t('tokens.create')}
        </button>
      </form>
      <ErrorMessage error={create.error} />
      <Loaded
        query={tokens}
        lines={2}
        isEmpty={(data) => data.tokens.length === 0}
        empty={<p className="empty">{t('tokens.empty')}</p>}
      >
        {(data) => (
          <DataTable
            label={t('tokens.title')}
            columns={[t('tokens.colName'), t('tokens.colCreated'), t('tokens.colLastUsed')]}
            actions={t('account.actions')}
          >
            {data.tokens.map((token) => (
              <tr key={token.id} data-testid="token-row">
                <td className="break-all">{token.name}</td>
                <td>{dateTime(token.createdAt)}</td>
                <td>
                  {token.lastUsedAt ? dateTime(token.lastUsedAt) : <span className="muted">{t('common.never')}</span>}
                </td>
                <td className="actions">
                  <ConfirmButton
                    label={t('tokens.revoke')}
                    ariaLabel={t('tokens.revokeLabel', { name: token.name })}
                    title={t('tokens.revokeTitle')}
                    confirmLabel={t('tokens.revokeConfirm')}
                    onConfirm={() => revoke(token.id)}
                  >
                    <p>{rich('tokens.revokeBody', { name: <strong className="break-all">{token.name}</strong> })}</p>
                  </ConfirmButton>
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </Loaded>
    </section>
  );
}
