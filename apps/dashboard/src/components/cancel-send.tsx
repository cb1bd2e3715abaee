import { useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api/client.js';
import { useI18n } from '../i18n/index.js';
import { ConfirmButton } from './confirm-button.js';

/** Cancel a scheduled send (asks first; 409 NOT_CANCELABLE once it has started shows in the dialog). */
export function CancelSend({ appId, id, onCanceled }: { appId: string; id: string; onCanceled?: () => void }) {
  const queryClient = useQueryClient();
  const { t } = useI18n();
  const cancel = async () => {
    await call(api.DELETE('/api/v1/apps/{appId}/notifications/{id}', { params: { path: { appId, id } } }));
    onCanceled?.();
    await queryClient.invalidateQueries({ queryKey: ['notifications', appId] });
  };
  return (
    <ConfirmButton
      label={t('notifications.cancel')}
      ariaLabel={t('notifications.cancelLabel', { id })}
      title={t('notifications.cancelTitle')}
      confirmLabel={t('notifications.cancelConfirm')}
      onConfirm={cancel}
    >
      <p>{t('notifications.cancelBody')}</p>
    </ConfirmButton>
  );
}
