import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { api, call } from '../api/client.js';
import { useI18n } from '../i18n/index.js';
import { ErrorMessage } from './error-panel.js';
import './dialog.css';

export const planRequestsQuery = {
  queryKey: ['plan-requests'],
  queryFn: () => call(api.GET('/api/v1/plan-requests')),
};

/** The signed-in customer's open plan request, if any. */
export function useOpenPlanRequest(enabled: boolean) {
  const requests = useQuery({ ...planRequestsQuery, enabled });
  return requests.data?.planRequests.find((request) => request.status === 'open') ?? null;
}

/**
 * "Request this plan": a dialog with an optional note to the operator. The request is e-mailed to
 * the operator and shows in the operator console; asking for another plan replaces an open request.
 */
export function RequestPlanButton({ plan, planName }: { plan: 'free' | 'pro' | 'enterprise'; planName: string }) {
  const { t } = useI18n();
  const dialog = useRef<HTMLDialogElement>(null);
  const [message, setMessage] = useState('');
  const queryClient = useQueryClient();
  const send = useMutation({
    mutationFn: () =>
      call(
        api.POST('/api/v1/plan-requests', { body: { plan, ...(message.trim() ? { message: message.trim() } : {}) } }),
      ),
    onSuccess: async () => {
      dialog.current?.close();
      setMessage('');
      await queryClient.invalidateQueries({ queryKey: ['plan-requests'] });
    },
  });
  const fieldId = `request-message-${plan}`;
  return (
    <>
      <button
        type="button"
        className="button button-primary"
        onClick={() => {
          send.reset();
          dialog.current?.showModal();
        }}
      >
        {t('pricing.requestLabel', { plan: planName })}
      </button>
      <dialog ref={dialog} className="dialog" aria-label={t('pricing.requestTitle', { plan: planName })}>
        <h2 className="dialog-title">{t('pricing.requestTitle', { plan: planName })}</h2>
        <div className="dialog-body">
          <p>{t('pricing.requestBody')}</p>
          <div className="field">
            <label htmlFor={fieldId}>{t('pricing.requestMessage')}</label>
            <textarea
              id={fieldId}
              rows={3}
              maxLength={1000}
              value={message}
              onChange={(event) => setMessage(event.target.value)}
            />
          </div>
        </div>
        <ErrorMessage error={send.error} />
        <div className="dialog-actions">
          <button type="button" className="button" onClick={() => dialog.current?.close()}>
            {t('common.cancel')}
          </button>
          <button
            type="button"
            className="button button-primary"
            onClick={() => send.mutate()}
            disabled={send.isPending}
          >
            {send.isPending ? t('common.working') : t('pricing.requestSend')}
          </button>
        </div>
      </dialog>
    </>
  );
}
