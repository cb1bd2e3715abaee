import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { api, call } from '../api/client.js';
import { ConfirmButton } from '../components/confirm-button.js';
import { ErrorPanel } from '../components/error-panel.js';
import { Pager, useCursorPages } from '../components/pager.js';
import { Skeleton } from '../components/skeleton.js';
import { useCurrentApp } from './app-layout.js';

const PAGE_SIZE = 20;
type StatusFilter = 'all' | 'active' | 'expired';

/** The push service behind a subscription, from its endpoint's host. */
export function pushServiceOf(endpoint: string): string {
  let host: string;
  try {
    host = new URL(endpoint).hostname;
  } catch {
    return 'Unknown';
  }
  if (host === 'fcm.googleapis.com' || host.endsWith('.googleapis.com')) return 'FCM (Chrome)';
  if (host.endsWith('.mozilla.com')) return 'Mozilla (Firefox)';
  if (host.endsWith('.push.apple.com')) return 'Apple (Safari)';
  if (host.endsWith('.notify.windows.com')) return 'WNS (Edge)';
  return host;
}

const dateFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });

export function SubscribersPage() {
  const app = useCurrentApp();
  const pages = useCursorPages();
  const queryClient = useQueryClient();
  const [status, setStatus] = useState<StatusFilter>('all');
  // What is typed, and what the list is filtered by (applied with the Filter button).
  const [uidInput, setUidInput] = useState('');
  const [tagInput, setTagInput] = useState('');
  const [filter, setFilter] = useState({ uid: '', tag: '' });
  useEffect(() => {
    document.title = `Subscribers · ${app.name} · Web Push`;
  }, [app.name]);
  const list = useQuery({
    queryKey: ['subscribers', app.id, status, filter.uid, filter.tag, pages.cursor],
    queryFn: () =>
      call(
        api.GET('/api/v1/apps/{appId}/subscribers', {
          params: {
            path: { appId: app.id },
            query: {
              limit: PAGE_SIZE,
              ...(status === 'all' ? {} : { status }),
              ...(filter.uid ? { uid: filter.uid } : {}),
              ...(filter.tag ? { tag: filter.tag } : {}),
              ...(pages.cursor ? { cursor: pages.cursor } : {}),
            },
          },
        }),
      ),
    placeholderData: keepPreviousData,
  });
  const applyFilter = (event: FormEvent) => {
    event.preventDefault();
    setFilter({ uid: uidInput.trim(), tag: tagInput.trim() });
    pages.reset();
  };
  const filtered = status !== 'all' || filter.uid !== '' || filter.tag !== '';
  const remove = async (subscriberId: string) => {
    await call(
      api.DELETE('/api/v1/apps/{appId}/subscribers/{subscriberId}', {
        params: { path: { appId: app.id, subscriberId } },
      }),
    );
    await queryClient.invalidateQueries({ queryKey: ['subscribers', app.id] });
    await queryClient.invalidateQueries({ queryKey: ['app', app.id] });
  };

  return (
    <section className="panel">
      <div className="panel-heading">
        <h2>Subscribers</h2>
        <div className="field field-inline">
          <label htmlFor="status-filter">Status</label>
          <select
            id="status-filter"
            value={status}
            onChange={(event) => {
              setStatus(event.target.value as StatusFilter);
              pages.reset();
            }}
          >
            <option value="all">All</option>
            <option value="active">Active</option>
            <option value="expired">Expired</option>
          </select>
        </div>
      </div>
      <form className="inline-form" onSubmit={applyFilter} aria-label="Filter subscribers">
        <div className="field field-inline">
          <label htmlFor="uid-filter">User id</label>
          <input id="uid-filter" value={uidInput} onChange={(event) => setUidInput(event.target.value)} />
        </div>
        <div className="field field-inline">
          <label htmlFor="tag-filter">Tag</label>
          <input
            id="tag-filter"
            placeholder="lang:ja"
            value={tagInput}
            onChange={(event) => setTagInput(event.target.value)}
          />
        </div>
        <button type="submit" className="button button-small">
          Filter
        </button>
      </form>
      {list.isPending ? (
        <Skeleton lines={6} />
      ) : list.isError ? (
        <ErrorPanel error={list.error} onRetry={() => void list.refetch()} />
      ) : list.data.subscribers.length === 0 ? (
        <p className="empty">{filtered ? 'No subscribers match these filters.' : 'No subscribers yet.'}</p>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Push service</th>
                  <th scope="col">Endpoint</th>
                  <th scope="col">Status</th>
                  <th scope="col">User id</th>
                  <th scope="col">Tags</th>
                  <th scope="col">VAPID key</th>
                  <th scope="col">Subscribed</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.data.subscribers.map((subscriber) => (
                  <tr key={subscriber.id}>
                    <td>{pushServiceOf(subscriber.endpoint)}</td>
                    <td className="endpoint" title={subscriber.endpoint}>
                      {subscriber.endpoint}
                    </td>
                    <td>
                      <span className={`status status-${subscriber.status}`}>{subscriber.status}</span>
                    </td>
                    <td className="break-all">{subscriber.uid ?? <span className="muted">—</span>}</td>
                    <td>
                      {Object.keys(subscriber.tags).length === 0 ? (
                        <span className="muted">—</span>
                      ) : (
                        <span className="tag-list">
                          {Object.entries(subscriber.tags).map(([key, value]) => (
                            <code key={key}>
                              {key}:{value}
                            </code>
                          ))}
                        </span>
                      )}
                    </td>
                    <td title={subscriber.vapidPublicKey ?? undefined}>
                      {subscriber.vapidPublicKey === null ? (
                        <span className="muted">deleted</span>
                      ) : subscriber.vapidPublicKey === app.vapidPublicKey ? (
                        'current'
                      ) : (
                        <>
                          earlier <code>…{subscriber.vapidPublicKey.slice(-8)}</code>
                        </>
                      )}
                    </td>
                    <td>{dateFormat.format(new Date(subscriber.createdAt))}</td>
                    <td className="actions">
                      <ConfirmButton
                        label="Delete"
                        ariaLabel={`Delete subscriber ${subscriber.id}`}
                        title="Delete this subscriber?"
                        confirmLabel="Delete subscriber"
                        onConfirm={() => remove(subscriber.id)}
                      >
                        <p>This browser will get no more notifications from this app until it subscribes again.</p>
                      </ConfirmButton>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            label="Subscriber"
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
