import { Link, useNavigate } from 'react-router';
import { usePlanName } from '../../api/plans.js';
import { useMe } from '../../api/session.js';
import { ConfirmButton } from '../../components/confirm-button.js';
import { DataTable, Loaded } from '../../components/data-table.js';
import { ErrorMessage } from '../../components/error-panel.js';
import { useChangeLanguage } from '../../components/language-picker.js';
import { useOpenPlanRequest } from '../../components/plan-request.js';
import { type I18n, LANGUAGE_NAMES, LANGUAGES, useI18n, usePageTitle } from '../../i18n/index.js';
import { AccessTokens } from './access-tokens.js';
import { AccountActivity } from './account-activity.js';
import { ChangePassword } from './change-password.js';
import { DeleteAccount } from './delete-account.js';
import { TwoFactorSetting } from './two-factor.js';
import { useEndSessions, useSessions, useSignOut } from './use-account.js';
import './account.css';
import './security.css';

const BROWSERS = [
  ['Edge', /Edg\/(\d+)/],
  ['Firefox', /Firefox\/(\d+)/],
  ['Chrome', /Chrome\/(\d+)/],
  ['Safari', /Version\/(\d+)[^ ]* (?:Mobile\/\S+ )?Safari/],
] as const;

/** "Chrome 126 on Linux" from a User-Agent (the full string is the cell's title). */
export function describeAgent(agent: string, t: I18n['t']): string {
  let browser: string | null = null;
  for (const [name, pattern] of BROWSERS) {
    const match = pattern.exec(agent);
    if (match) {
      browser = `${name} ${match[1]}`;
      break;
    }
  }
  const system = /iPhone|iPad/.test(agent)
    ? 'iOS'
    : /Android/.test(agent)
      ? 'Android'
      : /Windows/.test(agent)
        ? 'Windows'
        : /Mac OS X/.test(agent)
          ? 'macOS'
          : /Linux/.test(agent)
            ? 'Linux'
            : null;
  if (!browser) return agent.length > 60 ? `${agent.slice(0, 60)}…` : agent;
  return system ? t('account.agentOn', { browser, system }) : browser;
}

/** GET /auth/sessions: every live session, "this device" marked; the others can be ended. */
function Sessions() {
  const { t, plural, dateTime } = useI18n();
  const sessions = useSessions();
  const end = useEndSessions();
  const others = sessions.data?.sessions.filter((session) => !session.current).length ?? 0;
  return (
    <section className="panel" aria-labelledby="sessions-title">
      <div className="panel-heading">
        <h2 id="sessions-title">{t('account.sessions')}</h2>
        {others > 0 && (
          <ConfirmButton
            label={t('account.signOutOthers')}
            title={t('account.signOutOthersTitle')}
            confirmLabel={t('account.signOutOthersConfirm')}
            onConfirm={() => end()}
          >
            <p>{plural('account.signOutOthersBody.other', others)}</p>
          </ConfirmButton>
        )}
      </div>
      <Loaded query={sessions} lines={2}>
        {(data) => (
          <DataTable
            columns={[t('account.browser'), t('account.signedIn'), t('account.lastUsed')]}
            actions={t('account.actions')}
          >
            {data.sessions.map((session) => (
              <tr key={session.id} data-testid="session-row">
                <td title={session.userAgent ?? undefined}>
                  {session.userAgent ? (
                    describeAgent(session.userAgent, t)
                  ) : (
                    <span className="muted">{t('account.unknownAgent')}</span>
                  )}
                  {session.current && (
                    <>
                      {' '}
                      <span className="badge nowrap">{t('account.thisDevice')}</span>
                    </>
                  )}
                </td>
                <td>{dateTime(session.createdAt)}</td>
                <td>{dateTime(session.lastUsedAt)}</td>
                <td className="actions">
                  {!session.current && (
                    <ConfirmButton
                      label={t('account.signOutOne')}
                      ariaLabel={t('account.signOutOneLabel', { date: dateTime(session.createdAt) })}
                      title={t('account.signOutOneTitle')}
                      confirmLabel={t('account.signOutOneConfirm')}
                      onConfirm={() => end(session.id)}
                    >
                      <p>{t('account.signOutOneBody')}</p>
                    </ConfirmButton>
                  )}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </Loaded>
    </section>
  );
}

/** The account's language: the dashboard's, and the one its e-mails are written in. */
function LanguageSetting() {
  const { t, language } = useI18n();
  const { change, error } = useChangeLanguage();
  return (
    <section className="panel" aria-labelledby="language-title">
      <h2 id="language-title">{t('account.language')}</h2>
      <fieldset className="radio-row">
        <legend className="visually-hidden">{t('account.language')}</legend>
        {LANGUAGES.map((option) => (
          <label key={option} lang={option}>
            <input
              type="radio"
              name="account-language"
              value={option}
              checked={language === option}
              onChange={() => change(option)}
            />{' '}
            {LANGUAGE_NAMES[option]}
          </label>
        ))}
      </fieldset>
      <p className="hint">{t('account.languageHint')}</p>
      <ErrorMessage error={error} />
    </section>
  );
}

/** How to change plans, or the request already waiting for the operator. */
function PlanNote() {
  const { t, dateTime } = useI18n();
  const open = useOpenPlanRequest(true);
  const planName = usePlanName();
  if (open) {
    return (
      <p className="muted" role="status">
        {t('account.planRequested', { plan: planName(open.plan), date: dateTime(open.createdAt) })}
      </p>
    );
  }
  return <p className="muted">{t('account.planNote')}</p>;
}

export function AccountPage() {
  const { t } = useI18n();
  usePageTitle(t('account.title'));
  const me = useMe();
  const navigate = useNavigate();
  const planName = usePlanName();
  const signOut = useSignOut(() => navigate('/sign-in', { replace: true }));
  const user = me.data;
  if (!user) return null;
  return (
    <>
      <h1>{t('account.title')}</h1>
      <section className="panel">
        <dl className="facts">
          <dt>{t('account.email')}</dt>
          <dd>
            <span>{user.email}</span>{' '}
            <span className="badge">{user.emailVerified ? t('account.verified') : t('account.notVerified')}</span>
          </dd>
          <dt>{t('account.plan')}</dt>
          <dd>
            <span className="badge">{planName(user.plan)}</span> <Link to="/pricing">{t('account.comparePlans')}</Link>
          </dd>
        </dl>
        <PlanNote />
      </section>
      <LanguageSetting />
      <ChangePassword />
      <Sessions />
      <section className="panel">
        <h2>{t('account.signOutHeading')}</h2>
        <p className="muted">{t('account.signOutLead')}</p>
        <ErrorMessage error={signOut.error} />
        <button type="button" className="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
          {t('account.signOut')}
        </button>
      </section>
      <section aria-labelledby="security-title">
        <h2 id="security-title" className="security-heading">
          {t('account.security')}
        </h2>
        <TwoFactorSetting />
        <AccessTokens />
        <AccountActivity />
        <DeleteAccount user={user} />
      </section>
    </>
  );
}
