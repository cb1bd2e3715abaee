import { useState } from 'react';
import { Link } from 'react-router';
import { CancelSend } from '../../components/cancel-send.js';
import { ErrorMessage } from '../../components/error-panel.js';
import { useI18n } from '../../i18n/index.js';
import { type Notification, useFirstPageUntilFinished } from '../notifications/use-notifications.js';

/** What follows a send: its delivery as it happens, or the scheduled time with a way to cancel. */

const STEPS = ['queued', 'sending', 'completed'] as const;

export function SendProgress({ appId, accepted }: { appId: string; accepted: { id: string; targets: number } }) {
  const { t, plural, rich } = useI18n();
  const page = useFirstPageUntilFinished(appId, accepted.id);
  const notification: Partial<Notification> = page.data?.notifications.find((item) => item.id === accepted.id) ?? {
    status: 'queued',
    targets: accepted.targets,
  };
  const status = notification.status ?? 'queued';
  const reached = status === 'failed' ? 2 : Math.max(0, STEPS.indexOf(status as (typeof STEPS)[number]));
  return (
    <section className="panel" aria-labelledby="progress-title">
      <h2 id="progress-title">{t('send.delivery')}</h2>
      <ol className="steps" aria-label={t('send.progress')}>
        {STEPS.map((step, index) => (
          <li
            key={step}
            className={index <= reached ? 'step step-done' : 'step'}
            aria-current={index === reached ? 'step' : undefined}
          >
            {t(step === 'completed' && status === 'failed' ? 'send.step.failed' : `send.step.${step}`)}
          </li>
        ))}
      </ol>
      <p role="status" data-testid="send-status" data-status={status}>
        {plural('send.counts.other', notification.targets ?? accepted.targets, {
          state: status === 'completed' || status === 'failed' ? t('send.finished') : t('send.inProgress'),
          sent: notification.sent ?? 0,
          failed: notification.failed ?? 0,
          expired: notification.expired ?? 0,
        })}
      </p>
      {(notification.targets ?? accepted.targets) === 0 && (
        <div className="warning" data-testid="no-targets">
          <p>{t('send.noTargets')}</p>
          <p>
            {rich('send.noTargetsNext', {
              tryIt: <Link to={`/apps/${appId}/try`}>{t('send.tryItLink')}</Link>,
              snippet: <Link to={`/apps/${appId}`}>{t('send.snippetLink')}</Link>,
            })}
          </p>
        </div>
      )}
      {page.isError && <ErrorMessage error={page.error} />}
      <p>
        <Link to={`/apps/${appId}/notifications`}>{t('send.seeAll')}</Link>
      </p>
    </section>
  );
}

/** A send scheduled for one moment (`sendAt`) or for a time of day in each subscriber's zone (`localTime`). */
export function ScheduledSend({
  appId,
  id,
  sendAt,
  localTime,
}: {
  appId: string;
  id: string;
  sendAt?: string | undefined;
  localTime?: string | undefined;
}) {
  const [canceled, setCanceled] = useState(false);
  const { t, dateTime } = useI18n();
  return (
    <section className="panel" aria-labelledby="scheduled-title">
      <h2 id="scheduled-title">{t('send.scheduled')}</h2>
      <p role="status" data-testid="send-status" data-status={canceled ? 'canceled' : 'scheduled'}>
        {canceled
          ? t('send.canceled')
          : sendAt
            ? t('send.scheduledFor', { when: dateTime(sendAt) })
            : t('send.scheduledLocal', { time: localTime ?? '' })}
      </p>
      {!canceled && <CancelSend appId={appId} id={id} onCanceled={() => setCanceled(true)} />}
      <p>
        <Link to={`/apps/${appId}/notifications`}>{t('send.seeAll')}</Link>
      </p>
    </section>
  );
}
