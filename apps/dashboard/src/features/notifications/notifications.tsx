import { useRef } from 'react';
import { Link } from 'react-router';
import { CancelSend } from '../../components/cancel-send.js';
import { useStackedLabels } from '../../components/data-table.js';
import { ErrorPanel } from '../../components/error-panel.js';
import { Pager, useCursorPages } from '../../components/pager.js';
import { Skeleton } from '../../components/skeleton.js';
import { type MessageKey, useI18n, usePageTitle } from '../../i18n/index.js';
import { roleAllows } from '../apps/app-role.js';
import { useCurrentApp } from '../apps/use-apps.js';
import { useNotifications } from './use-notifications.js';
import './notifications.css';

/** Click-through rate: clicked ÷ shown, "—" while nothing has been shown (no rate to speak of). */
export const clickThroughRate = ({ shown, clicked }: { shown: number; clicked: number }, language = 'en') =>
  shown === 0
    ? '—'
    : new Intl.NumberFormat(language, { style: 'percent', maximumFractionDigits: 1 }).format(clicked / shown);

/** Date and time to the second in the page's language, "—" for none. */
export function useFormatDate() {
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

export function NotificationsPage() {
  const app = useCurrentApp();
  const sends = roleAllows(app.role, 'editor');
  const pages = useCursorPages();
  const list = useNotifications(app.id, pages.cursor);
  const table = useRef<HTMLTableElement>(null);
  useStackedLabels(table);
  const { t, rich, language } = useI18n();
  const formatDate = useFormatDate();
  usePageTitle(`${t('notifications.title')} · ${app.name}`);

  return (
    <section className="panel">
      <div className="panel-heading">
        <h2>{t('notifications.title')}</h2>
        {sends && (
          <Link to={`/apps/${app.id}/send`} className="button button-primary button-small">
            {t('notifications.new')}
          </Link>
        )}
      </div>
      {list.isPending ? (
        <Skeleton lines={6} />
      ) : list.isError ? (
        <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />
      ) : list.data.notifications.length === 0 ? (
        <p className="empty">
          {t('notifications.empty')}{' '}
          {sends &&
            rich('notifications.emptyNext', {
              send: <Link to={`/apps/${app.id}/send`}>{t('notifications.sendLink')}</Link>,
            })}
        </p>
      ) : (
        <>
          <div className="table-wrap">
            <table ref={table} className="stacking notifications-table">
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
                  <tr key={notification.id}>
                    <td>{formatDate(notification.createdAt)}</td>
                    <td className="prose">
                      <Link to={`/apps/${app.id}/notifications/${notification.id}`}>{notification.title}</Link>
                    </td>
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
                      {sends && notification.status === 'scheduled' && (
                        <CancelSend appId={app.id} id={notification.id} />
                      )}
                    </td>
                  </tr>
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
