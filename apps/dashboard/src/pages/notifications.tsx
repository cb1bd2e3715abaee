import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { Fragment, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { api, call } from '../api/client.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { ErrorPanel } from '../components/error-panel.js';
import { Pager, useCursorPages } from '../components/pager.js';
import { Skeleton } from '../components/skeleton.js';
import { useCurrentApp } from './app-layout.js';
import { BUTTON_CLICKS_LABEL, buttonClicks } from './send-rich-fields.js';

const PAGE_SIZE = 20;

export const notificationsQuery = (appId: string, cursor: string | null) => ({
  queryKey: ['notifications', appId, cursor],
  queryFn: () =>
    call(
      api.GET('/api/v1/apps/{appId}/notifications', {
        params: { path: { appId }, query: { limit: PAGE_SIZE, ...(cursor ? { cursor } : {}) } },
      }),
    ),
});

export type Notification = Awaited<
  ReturnType<ReturnType<typeof notificationsQuery>['queryFn']>
>['notifications'][number];

const percentFormat = new Intl.NumberFormat('en', { style: 'percent', maximumFractionDigits: 1 });

/** Click-through rate: clicked ÷ shown, "—" while nothing has been shown (no rate to speak of). */
export const clickThroughRate = ({ shown, clicked }: { shown: number; clicked: number }) =>
  shown === 0 ? '—' : percentFormat.format(clicked / shown);

export const CTR_DEFINITION = 'Click-through rate: clicked ÷ shown';

const dateFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'medium' });
const formatDate = (value: string | null | undefined) => (value ? dateFormat.format(new Date(value)) : '—');

/** Cancel a scheduled send (asks first; 409 NOT_CANCELABLE once it has started shows in the dialog). */
export function CancelSend({ appId, id, onCanceled }: { appId: string; id: string; onCanceled?: () => void }) {
  const queryClient = useQueryClient();
  const cancel = async () => {
    await call(api.DELETE('/api/v1/apps/{appId}/notifications/{id}', { params: { path: { appId, id } } }));
    onCanceled?.();
    await queryClient.invalidateQueries({ queryKey: ['notifications', appId] });
  };
  return (
    <ConfirmButton
      label="Cancel"
      ariaLabel={`Cancel scheduled send ${id}`}
      title="Cancel this scheduled send?"
      confirmLabel="Cancel the send"
      onConfirm={cancel}
    >
      <p>Nothing will be sent. This cannot be undone.</p>
    </ConfirmButton>
  );
}

function Details({ notification }: { notification: Notification }) {
  return (
    <dl className="facts">
      <dt>Id</dt>
      <dd>
        <code>{notification.id}</code>
      </dd>
      <dt>Title</dt>
      <dd>{notification.title}</dd>
      <dt>Body</dt>
      <dd>{notification.body}</dd>
      {notification.url && (
        <>
          <dt>Link</dt>
          <dd className="break-all">{notification.url}</dd>
        </>
      )}
      <dt>Created</dt>
      <dd>{formatDate(notification.createdAt)}</dd>
      {notification.sendAt && (
        <>
          <dt>Send at</dt>
          <dd>{formatDate(notification.sendAt)}</dd>
        </>
      )}
      {notification.errorCode && (
        <>
          <dt>Error</dt>
          <dd>
            <code>{notification.errorCode}</code>
          </dd>
        </>
      )}
      <dt>Completed</dt>
      <dd>{formatDate(notification.completedAt)}</dd>
      <dt>Delivery</dt>
      <dd>
        {notification.sent} sent, {notification.failed} failed, {notification.expired} expired of {notification.targets}
      </dd>
      <dt>Engagement</dt>
      <dd data-testid="engagement">
        {notification.shown} shown, {notification.clicked} clicked, click-through rate {clickThroughRate(notification)}{' '}
        <span className="hint">(clicked ÷ shown)</span>
      </dd>
      {buttonClicks(notification) && (
        <>
          <dt>{BUTTON_CLICKS_LABEL}</dt>
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
  const list = useQuery({ ...notificationsQuery(app.id, pages.cursor), placeholderData: keepPreviousData });
  useEffect(() => {
    document.title = `Notifications · ${app.name} · Web Push`;
  }, [app.name]);

  return (
    <section className="panel">
      <div className="panel-heading">
        <h2>Notifications</h2>
        <Link to={`/apps/${app.id}/send`} className="button button-primary button-small">
          New notification
        </Link>
      </div>
      {list.isPending ? (
        <Skeleton lines={6} />
      ) : list.isError ? (
        <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />
      ) : list.data.notifications.length === 0 ? (
        <p className="empty">Nothing sent yet.</p>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Sent at</th>
                  <th scope="col">Title</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="num">
                    Targets
                  </th>
                  <th scope="col" className="num">
                    Sent
                  </th>
                  <th scope="col" className="num">
                    Failed
                  </th>
                  <th scope="col" className="num">
                    Expired
                  </th>
                  <th scope="col" className="engagement">
                    Shown
                  </th>
                  <th scope="col" className="engagement">
                    Clicked
                  </th>
                  <th scope="col" className="engagement">
                    <abbr title={CTR_DEFINITION}>CTR</abbr>
                  </th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
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
                        <span className={`status status-${notification.status}`}>{notification.status}</span>
                        {notification.status === 'scheduled' && notification.sendAt && (
                          <span className="hint">for {formatDate(notification.sendAt)}</span>
                        )}
                      </td>
                      <td className="num">{notification.targets}</td>
                      <td className="num">{notification.sent}</td>
                      <td className="num">{notification.failed}</td>
                      <td className="num">{notification.expired}</td>
                      <td className="engagement">{notification.shown}</td>
                      <td className="engagement">{notification.clicked}</td>
                      <td className="engagement">{clickThroughRate(notification)}</td>
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
          <p className="hint table-note">
            Shown and clicked are reported by the SDK's service worker (unless the site turned tracking off), each
            subscriber counted once. CTR, the click-through rate, is clicked ÷ shown; — until something is shown.
          </p>
          <Pager
            label="Notification"
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
