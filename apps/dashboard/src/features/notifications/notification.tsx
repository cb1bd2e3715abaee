import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { CancelSend } from '../../components/cancel-send.js';
import { ErrorPanel } from '../../components/error-panel.js';
import { RemoteImage } from '../../components/remote-image.js';
import { Skeleton } from '../../components/skeleton.js';
import { type MessageKey, useI18n, usePageTitle } from '../../i18n/index.js';
import { useRichText } from '../../i18n/rich-strings.js';
import { roleAllows } from '../apps/app-role.js';
import { useCurrentApp } from '../apps/use-apps.js';
import { VariantComparison } from './notification-variants.js';
import { buttonClicks, clickThroughRate, failureHint, useFormatDate } from './notifications.js';
import { type Notification, useNotification } from './use-notifications.js';
import './notifications.css';

/** What the notification showed: its icon, title, body, image and buttons, with every URL spelled out. */
function Content({ notification }: { notification: Notification }) {
  const { t, plural } = useI18n();
  const richText = useRichText();
  const actions = notification.actions ?? [];
  // The icon's box is too small for words: a failed icon is said beside its address.
  const [failedIcon, setFailedIcon] = useState<string | null>(null);
  return (
    <section className="panel" aria-labelledby="content-title">
      <h2 id="content-title">{t('notification.content')}</h2>
      <div className="notification-card">
        {notification.icon ? (
          <RemoteImage src={notification.icon} className="notification-icon" fallback="" onFailed={setFailedIcon} />
        ) : (
          <span className="notification-icon" aria-hidden="true" />
        )}
        <div className="notification-text">
          <strong>{notification.title}</strong>
          <span>{notification.body}</span>
          {notification.image && (
            <RemoteImage src={notification.image} className="notification-image" fallback={t('notification.noImage')} />
          )}
          {actions.length > 0 && (
            <span className="notification-buttons">
              {actions.map((action) => (
                <span key={action.action} className="notification-button">
                  {action.title}
                </span>
              ))}
            </span>
          )}
        </div>
      </div>
      <dl className="facts">
        <dt>{t('notifications.link')}</dt>
        <dd className="break-all">{notification.url ?? <span className="muted">{t('notification.none')}</span>}</dd>
        <dt>{t('notification.icon')}</dt>
        <dd className="break-all">
          {notification.icon ?? <span className="muted">{t('notification.none')}</span>}
          {notification.icon && failedIcon === notification.icon && (
            <span className="hint">{t('notification.noImage')}</span>
          )}
        </dd>
        <dt>{richText.image}</dt>
        <dd className="break-all">{notification.image ?? <span className="muted">{t('notification.none')}</span>}</dd>
        {notification.badge && (
          <>
            <dt>{t('notification.badge')}</dt>
            <dd className="break-all">{notification.badge}</dd>
          </>
        )}
        {notification.tag && (
          <>
            <dt>{richText.tag}</dt>
            <dd>
              <code>{notification.tag}</code>
            </dd>
          </>
        )}
        <dt>{t('notification.buttons')}</dt>
        <dd data-testid="buttons">
          {actions.length === 0 ? (
            <span className="muted">{t('notification.none')}</span>
          ) : (
            <ul className="plain-list">
              {actions.map((action) => (
                <li key={action.action}>
                  <strong>{action.title}</strong> →{' '}
                  <span className="break-all">
                    {action.url ?? notification.url ?? <span className="muted">{t('notification.noLink')}</span>}
                  </span>{' '}
                  <span className="hint">
                    {plural('notification.buttonClicks.other', notification.actionClicks[action.action] ?? 0)}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </dd>
      </dl>
    </section>
  );
}

/** Where the send is: its dates and every count. */
function Progress({ notification }: { notification: Notification }) {
  const { t, language } = useI18n();
  const richText = useRichText();
  const formatDate = useFormatDate();
  return (
    <section className="panel" aria-labelledby="progress-title">
      <h2 id="progress-title">{t('notification.progress')}</h2>
      <dl className="facts">
        <dt>{t('notifications.id')}</dt>
        <dd>
          <code>{notification.id}</code>
        </dd>
        <dt>{t('notifications.colStatus')}</dt>
        <dd>
          <span className={`status status-${notification.status}`}>
            {t(`notifications.status.${notification.status}` as MessageKey)}
          </span>
        </dd>
        <dt>{t('notifications.created')}</dt>
        <dd>{formatDate(notification.createdAt)}</dd>
        {notification.sendAt && (
          <>
            <dt>{t('notifications.sendAt')}</dt>
            <dd>{formatDate(notification.sendAt)}</dd>
          </>
        )}
        {notification.errorCode && (
          <>
            <dt>{t('notifications.error')}</dt>
            <dd>
              <code>{notification.errorCode}</code>
            </dd>
          </>
        )}
        <dt>{t('notifications.completed')}</dt>
        <dd>{formatDate(notification.completedAt)}</dd>
        <dt>{t('notifications.delivery')}</dt>
        <dd>
          {t('notifications.deliveryCounts', {
            sent: notification.sent,
            failed: notification.failed,
            expired: notification.expired,
            targets: notification.targets,
          })}
        </dd>
        {notification.failureReasons && (
          <>
            <dt>{t('notifications.failureReasons')}</dt>
            <dd data-testid="failure-reasons">
              <ul>
                {Object.entries(notification.failureReasons).map(([reason, count]) => (
                  <li key={reason}>
                    <code>{reason}</code>: {count}
                    {failureHint(reason, t) && <span className="hint"> — {failureHint(reason, t)}</span>}
                  </li>
                ))}
              </ul>
            </dd>
          </>
        )}
        <dt>{t('notifications.engagement')}</dt>
        <dd data-testid="engagement">
          {t('notifications.engagementCounts', {
            shown: notification.shown,
            clicked: notification.clicked,
            ctr: clickThroughRate(notification, language),
          })}{' '}
          <span className="hint">{t('notifications.engagementNote')}</span>
        </dd>
        {buttonClicks(notification) && (
          <>
            <dt>{richText.buttonClicks}</dt>
            <dd data-testid="button-clicks">{buttonClicks(notification)}</dd>
          </>
        )}
      </dl>
    </section>
  );
}

/** /apps/:appId/notifications/:id: one send, what it showed and how it went. */
export function NotificationPage() {
  const app = useCurrentApp();
  const { id = '' } = useParams();
  const notification = useNotification(app.id, id);
  const { t } = useI18n();
  usePageTitle(`${notification.data?.title ?? t('notification.title')} · ${app.name}`);
  const back = (
    <p>
      <Link to={`/apps/${app.id}/notifications`}>{t('notification.back')}</Link>
    </p>
  );
  if (notification.isPending) return <Skeleton lines={6} />;
  if (notification.isError)
    return <ErrorPanel error={notification.error} onRetry={() => void notification.refetch()} />;
  if (!notification.data)
    return (
      <section className="panel">
        <h2>{t('notification.missing')}</h2>
        <p className="empty">{t('notification.missingBody')}</p>
        {back}
      </section>
    );
  const sent = notification.data;
  return (
    <>
      {back}
      <div className="panel-heading">
        <h2 className="notification-heading">{sent.title}</h2>
        <div className="heading-actions">
          {sent.status === 'scheduled' ? (
            roleAllows(app.role, 'editor') && <CancelSend appId={app.id} id={sent.id} />
          ) : (
            // The session cookie authenticates the download: a plain link, saved under the API's file name.
            <a
              className="button"
              href={`/api/v1/notifications/${encodeURIComponent(sent.id)}/report`}
              download
              title={t('notification.exportReportHint')}
            >
              {t('notification.exportReport')}
            </a>
          )}
        </div>
      </div>
      <VariantComparison notification={sent} />
      <div className="notification-grid">
        <Content notification={sent} />
        <Progress notification={sent} />
      </div>
    </>
  );
}
