import { Link, useNavigate, useSearchParams } from 'react-router';
import { ApiError } from '../../api/client.js';
import { useMe } from '../../api/session.js';
import { ErrorMessage } from '../../components/error-panel.js';
import { type MessageKey, useI18n, usePageTitle } from '../../i18n/index.js';
import { useAcceptInvitation } from './use-members.js';

/**
 * `${PUBLIC_URL}/accept-invitation?token=…` (pinned): the link of the invitation e-mail lands here,
 * behind sign-in (a visitor signs in, or up, and comes back). Accepting is one click, so a link
 * opened by a mail scanner joins nobody.
 */
export function AcceptInvitationPage() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const me = useMe();
  const navigate = useNavigate();
  const accept = useAcceptInvitation();
  const { t } = useI18n();
  usePageTitle(t('invitation.title'));
  const refusal = accept.error instanceof ApiError ? accept.error.code : null;
  const explained: Partial<Record<string, MessageKey>> = {
    FORBIDDEN: 'invitation.forbidden',
    INVALID_TOKEN: 'invitation.invalid',
  };
  const explanation = refusal ? explained[refusal] : undefined;

  return (
    <section className="auth-card panel" data-testid="accept-invitation">
      <h1>{t('invitation.title')}</h1>
      {!token ? (
        <p className="error-message" role="alert">
          {t('invitation.noToken')}
        </p>
      ) : (
        <>
          <p>{t('invitation.intro', { email: me.data?.email ?? '' })}</p>
          {explanation ? (
            <p className="error-message" role="alert">
              {t(explanation, { email: me.data?.email ?? '' })}
            </p>
          ) : (
            <ErrorMessage error={accept.error} />
          )}
          <p>
            <button
              type="button"
              className="button button-primary"
              disabled={accept.isPending}
              onClick={() =>
                accept.mutate(token, { onSuccess: ({ app }) => void navigate(`/apps/${app.id}`, { replace: true }) })
              }
            >
              {accept.isPending ? t('common.working') : t('invitation.accept')}
            </button>{' '}
            <Link to="/">{t('invitation.later')}</Link>
          </p>
        </>
      )}
    </section>
  );
}
