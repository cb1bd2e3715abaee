import { Fragment, useState } from 'react';
import { Link } from 'react-router';
import { CancelSend } from '../../components/cancel-send.js';
import { ErrorPanel } from '../../components/error-panel.js';
import { Pager, useCursorPages } from '../../components/pager.js';
import { Skeleton } from '../../components/skeleton.js';
import { type MessageKey, useI18n, usePageTitle } from '../../i18n/index.js';
import { useRichText } from '../../i18n/rich-strings.js';
import { useCurrentApp } from '../apps/use-apps.js';
import { type Notification, useNotifications } from './use-notifications.js';
import './notifications.css';

/** Click-through rate: clicked ÷ shown, "—" while nothing has been shown (no rate to speak of). */
export const clickThroughRate = ({ shown, clicked }: { shown: number; clicked: number }, language = 'en') =>
  shown === 0
    ? '—'
    : new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 1 }).format(clicked / shown);

/** Date and time to the second in the page's language, "—" for none. */
function useFormatDate() {
  const { language } = useI18n();
  const format = new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'medium' });
  return (value: string | null | undefined) => (value ? format.format(new Date(value)) : '—');
}

/** "Buy now: 3, Later: 1": each button's clicks, by its label. */
export function buttonClicks(notification: {
  actions?: { action: string; title: string }[];
  actionClicks: Record<string, number>;
}): string | null {
  const actions = notification.actions ?? [];
  if (actions.length === 0) return null;
  return actions.map((action) => `${action.title}: ${notification.actionClicks[action.action] ?? 0}`).join(', ');
}

/** What to do about the push services' answers people meet most. */
export function failureHint(reason: string, t: (key: MessageKey) => string): string | null {
  if (reason === '403 BadJwtToken') return t('notifications.failureHint.badJwt');
  if (reason === '400 VapidPkHashMismatch') return t('notifications.failureHint.keyMismatch');
  if (reason === '400 UnauthorizedRegistration') return t('notifications.failureHint.fcmVapid');
  if (reason === '406 channelthrottled') return t('notifications.failureHint.throttled');
  if (reason.startsWith('413')) return t('notifications.failureHint.tooLarge');
  return null;
}

function Details({ notification }: { notification: Notification }) {
  const { t, language } = useI18n();
  const richText = useRichText();
  const formatDate = useFormatDate();
  return (
    <dl className="facts">
      <dt>{t('notifications.id')}</dt>
      <dd>
        <code>{notification.id}</code>
      </dd>
      <dt>{t('notifications.titleField')}</dt>
      <dd>{notification.title}</dd>
      <dt>{t('notifications.body')}</dt>
      <dd>{notification.body}</dd>
      {notification.url && (
        <>
          <dt>{t('notifications.link')}</dt>
          <dd className="break-all">{notification.url}</dd>
        </>
      )}
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
  );
}

export function NotificationsPage() {
  const app = useCurrentApp();
  const pages = useCursorPages();
  const [open, setOpen] = useState<string | null>(null);
  const list = useNotifications(app.id, pages.cursor);
  const { t, rich, language } = useI18n();
  const formatDate = useFormatDate();
  usePageTitle(`${t('notifications.title')} · ${app.name}`);

  return (
    <section className="panel">
      <div className="panel-heading">
        <h2>{t('notifications.title')}</h2>
        <Link to={`/apps/${app.id}/send`} className="button button-primary button-small">
          {t('notifications.new')}
        </Link>
      </div>
      {list.isPending ? (
        <Skeleton lines={6} />
      ) : list.isError ? (
        <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />
      ) : list.data.notifications.length === 0 ? (
        <p className="empty">
          {t('notifications.empty')}{' '}
          {rich('notifications.emptyNext', {
            send: <Link to={`/apps/${app.id}/send`}>{t('notifications.sendLink')}</Link>,
          })}
        </p>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{t('notifications.colSentAt')}</th>
                  <th scope="col">{t('notifications.colTitle')}</th>
                  <th scope="col">{t('notifications.colStatus')}</th>
                  <th scope="col" className="num">
                    {t('notifications.colTargets')}
                  </th>
                  <th scope="col" className="num">
                    {t('notifications.colSent')}
                  </th>
                  <th scope="col" className="num">
                    {t('notifications.colFailed')}
                  </th>
                  <th scope="col" className="num">
                    {t('notifications.colExpired')}
                  </th>
                  <th scope="col" className="engagement">
                    {t('notifications.colShown')}
                  </th>
                  <th scope="col" className="engagement">
                    {t('notifications.colClicked')}
                  </th>
                  <th scope="col" className="engagement">
                    <abbr title={t('notifications.ctrDefinition')}>{t('notifications.colCtr')}</abbr>
                  </th>
                  <th scope="col">
                    <span className="visually-hidden">{t('notifications.colActions')}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.data.notifications.map((notification) => (
                  <Fragment key={notification.id}>
                    <tr>
                      <td>
                        <button
                          type="button"
                          className="link-button"
                          aria-expanded={open === notification.id}
                          aria-controls={`details-${notification.id}`}
                          onClick={() => setOpen(open === notification.id ? null : notification.id)}
                        >
                          {formatDate(notification.createdAt)}
                        </button>
                      </td>
                      <td>{notification.title}</td>
                      <td>
                        <span className={`status status-${notification.status}`}>
                          {t(`notifications.status.${notification.status}` as MessageKey)}
                        </span>
                        {notification.status === 'scheduled' && notification.sendAt && (
                          <span className="hint">
                            {t('notifications.for', { when: formatDate(notification.sendAt) })}
                          </span>
                        )}
                      </td>
                      <td className="num">{notification.targets}</td>
                      <td className="num">{notification.sent}</td>
                      <td className="num">{notification.failed}</td>
                      <td className="num">{notification.expired}</td>
                      <td className="engagement">{notification.shown}</td>
                      <td className="engagement">{notification.clicked}</td>
                      <td className="engagement">{clickThroughRate(notification, language)}</td>
                      <td className="actions">
                        {notification.status === 'scheduled' && <CancelSend appId={app.id} id={notification.id} />}
                      </td>
                    </tr>
                    {open === notification.id && (
                      <tr id={`details-${notification.id}`} className="details-row">
                        <td colSpan={11}>
                          <Details notification={notification} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                ))}
              </tbody>
            </table>
          </div>
          <p className="hint table-note">{t('notifications.note')}</p>
          <Pager
            label={t('notifications.pager')}
            pageNumber={pages.pageNumber}
            nextCursor={list.data.nextCursor}
            onNewer={pages.newer}
            onOlder={pages.older}
          />
        </>
      )}
    </section>
  );
}
