import { useNavigate } from 'react-router';
import { ConfirmButton } from '../../components/confirm-button.js';
import { useI18n } from '../../i18n/index.js';
import { useCurrentApp } from '../apps/use-apps.js';
import { useDeleteApp } from './use-app-settings.js';

/** Deleting the app, after a dialog that names what goes with it. */
export function DeleteApp() {
  const app = useCurrentApp();
  const { t, rich, plural } = useI18n();
  const navigate = useNavigate();
  const remove = useDeleteApp(app.id, () => navigate('/', { replace: true }));
  const subscribers = app.stats.activeSubscribers + app.stats.expiredSubscribers;
  return (
    <section className="panel danger-zone" aria-labelledby="delete-app-title">
      <h2 id="delete-app-title">{t('settings.deleteTitle')}</h2>
      <p className="muted">{t('settings.deleteLead')}</p>
      <ConfirmButton
        label={t('settings.delete')}
        title={t('settings.deleteConfirmTitle', { name: app.name })}
        confirmLabel={t('settings.deleteConfirm')}
        onConfirm={remove}
      >
        <p>{rich('settings.deleteBody', { name: <strong className="break-all">{app.name}</strong> })}</p>
        <ul>
          <li>{plural('settings.deleteSubscribers.other', subscribers)}</li>
          <li>{rich('settings.deleteKeys', { code: <code>INVALID_API_KEY</code> })}</li>
          <li>{t('settings.deleteHistory')}</li>
          <li>{t('settings.deleteWebhook')}</li>
        </ul>
        <p>
          <strong>{t('settings.deleteFinal')}</strong>
        </p>
      </ConfirmButton>
    </section>
  );
}
