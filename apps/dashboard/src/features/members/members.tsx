import { type FormEvent, useState } from 'react';
import { useMe } from '../../api/session.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { DataTable, Loaded } from '../../components/data-table.js';
import { ErrorMessage } from '../../components/error-panel.js';
import { Field } from '../../components/field.js';
import { type MessageKey, useI18n, usePageTitle } from '../../i18n/index.js';
import { roleAllows } from '../apps/app-role.js';
import { useCurrentApp } from '../apps/use-apps.js';
import { MEMBER_ROLES, type MemberRole, useChangeRole, useInvite, useMembers, useRemoveMember } from './use-members.js';
import './members.css';

const roleName = (role: string) => `members.role.${role}` as MessageKey;

function InviteForm({ appId }: { appId: string }) {
  const { t } = useI18n();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<MemberRole>('viewer');
  const [sentTo, setSentTo] = useState<string | null>(null);
  const invite = useInvite(appId);
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    invite.mutate(
      { email: email.trim(), role },
      {
        onSuccess: (answer) => {
          setSentTo(answer.invitation.email);
          setEmail('');
        },
      },
    );
  };
  return (
    <section className="panel">
      <h2>{t('members.inviteTitle')}</h2>
      <p className="hint">{t('members.inviteHint')}</p>
      <form onSubmit={onSubmit} className="invite-form">
        <Field
          id="invite-email"
          label={t('members.email')}
          type="email"
          required
          autoComplete="off"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
        />
        <div className="field">
          <label htmlFor="invite-role">{t('members.role')}</label>
          <select id="invite-role" value={role} onChange={(event) => setRole(event.target.value as MemberRole)}>
            {MEMBER_ROLES.map((option) => (
              <option key={option} value={option}>
                {t(roleName(option))}
              </option>
            ))}
          </select>
        </div>
        <ErrorMessage error={invite.error} />
        {sentTo && (
          <p className="success" role="status" data-testid="invite-sent">
            {t('members.inviteSent', { email: sentTo })}
          </p>
        )}
        <button type="submit" className="button button-primary" disabled={invite.isPending}>
          {invite.isPending ? t('members.inviting') : t('members.invite')}
        </button>
      </form>
    </section>
  );
}

/** Roles and what each may do, so the one who invites knows what they give. */
function RolesExplained() {
  const { t } = useI18n();
  return (
    <details className="panel roles-explained">
      <summary>{t('members.rolesTitle')}</summary>
      <dl>
        {(['owner', ...MEMBER_ROLES] as const).map((role) => (
          <div key={role}>
            <dt>{t(roleName(role))}</dt>
            <dd>{t(`members.role.${role}.explain` as MessageKey)}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}

export function MembersPage() {
  const app = useCurrentApp();
  const me = useMe();
  const members = useMembers(app.id);
  const changeRole = useChangeRole(app.id);
  const remove = useRemoveMember(app.id);
  const { t, dateTime } = useI18n();
  usePageTitle(`${t('members.title')} · ${app.name}`);
  const manages = roleAllows(app.role, 'admin');
  const myId = me.data?.id;

  return (
    <>
      {manages && <InviteForm appId={app.id} />}
      <section className="panel">
        <h2>{t('members.title')}</h2>
        {!manages && <p className="hint">{t('members.readOnly', { role: t(roleName(app.role)) })}</p>}
        <ErrorMessage error={changeRole.error} />
        <Loaded query={members} lines={3}>
          {(data) => (
            <DataTable
              columns={[t('members.email'), t('members.role'), t('members.joined')]}
              actions={t('members.actions')}
              className="members-table"
            >
              {data.members.map((member) => (
                <tr key={member.userId} data-testid="member-row">
                  <td className="break-all">
                    {member.email}
                    {member.userId === myId && <span className="muted"> {t('members.you')}</span>}
                  </td>
                  <td>
                    {manages && member.role !== 'owner' ? (
                      <select
                        aria-label={t('members.roleOf', { email: member.email })}
                        value={member.role}
                        disabled={changeRole.isPending}
                        onChange={(event) =>
                          changeRole.mutate({ userId: member.userId, role: event.target.value as MemberRole })
                        }
                      >
                        {MEMBER_ROLES.map((option) => (
                          <option key={option} value={option}>
                            {t(roleName(option))}
                          </option>
                        ))}
                      </select>
                    ) : (
                      t(roleName(member.role))
                    )}
                  </td>
                  <td>{dateTime(member.createdAt)}</td>
                  <td className="actions">
                    {member.role !== 'owner' && (manages || member.userId === myId) && (
                      <ConfirmButton
                        label={member.userId === myId ? t('members.leave') : t('members.remove')}
                        ariaLabel={
                          member.userId === myId ? undefined : t('members.removeLabel', { email: member.email })
                        }
                        title={member.userId === myId ? t('members.leaveTitle') : t('members.removeTitle')}
                        confirmLabel={member.userId === myId ? t('members.leave') : t('members.remove')}
                        onConfirm={() => remove(member.userId)}
                      >
                        <p>
                          {member.userId === myId
                            ? t('members.leaveBody', { app: app.name })
                            : t('members.removeBody', { email: member.email, app: app.name })}
                        </p>
                      </ConfirmButton>
                    )}
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
        </Loaded>
      </section>
      <section className="panel">
        <h2>{t('members.pendingTitle')}</h2>
        <Loaded
          query={members}
          lines={1}
          isEmpty={(data) => data.invitations.length === 0}
          empty={<p className="empty">{t('members.pendingEmpty')}</p>}
        >
          {(data) => (
            <DataTable columns={[t('members.email'), t('members.role'), t('members.expires')]}>
              {data.invitations.map((invitation) => (
                <tr key={invitation.id} data-testid="invitation-row">
                  <td className="break-all">{invitation.email}</td>
                  <td>{t(roleName(invitation.role))}</td>
                  <td>{dateTime(invitation.expiresAt)}</td>
                </tr>
              ))}
            </DataTable>
          )}
        </Loaded>
      </section>
      <RolesExplained />
    </>
  );
}
