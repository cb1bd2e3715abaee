import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { ConfirmButton } from '../../components/confirm-button.js';
import { DataTable, Loaded } from '../../components/data-table.js';
import { LanguageTagList } from '../../components/language-tag-list.js';
import { Pager, useCursorPages } from '../../components/pager.js';
import { tagPairOf } from '../../components/tag-pair.js';
import { TimeZoneList } from '../../components/time-zones.js';
import { type MessageKey, useI18n, usePageTitle } from '../../i18n/index.js';
import { roleAllows } from '../apps/app-role.js';
import { useCurrentApp } from '../apps/use-apps.js';
import { ImportSubscribers } from './import-subscribers.js';
import { type StatusFilter, useDeleteSubscriber, useSubscribers } from './use-subscribers.js';
import './subscribers.css';

/** The push service behind a subscription, from its endpoint's host. */
export function pushServiceOf(endpoint: string): string | null {
  let host: string;
  try {
    host = new URL(endpoint).hostname;
  } catch {
    return null;
  }
  if (host === 'fcm.googleapis.com' || host.endsWith('.googleapis.com')) return 'FCM (Chrome)';
  if (host.endsWith('.mozilla.com')) return 'Mozilla (Firefox)';
  if (host.endsWith('.push.apple.com')) return 'Apple (Safari)';
  if (host.endsWith('.notify.windows.com')) return 'WNS (Edge)';
  return host;
}

export function SubscribersPage() {
  const app = useCurrentApp();
  const pages = useCursorPages();
  const [status, setStatus] = useState<StatusFilter>('all');
  // What is typed, and what the list is filtered by (applied with the Filter button).
  const [uidInput, setUidInput] = useState('');
  const [tagInput, setTagInput] = useState('');
  const [languageInput, setLanguageInput] = useState('');
  const [timeZoneInput, setTimeZoneInput] = useState('');
  const [filter, setFilter] = useState({ uid: '', tag: '', language: '', timeZone: '' });
  const { t, rich, dateTime, language } = useI18n();
  usePageTitle(`${t('subscribers.title')} · ${app.name}`);
  const list = useSubscribers(app.id, { status, ...filter }, pages.cursor);
  const applyFilter = (event: FormEvent) => {
    event.preventDefault();
    // The API's filter is `key:value`; the dashboard writes tags as `key=value` everywhere.
    const pair = tagPairOf(tagInput);
    setFilter({
      uid: uidInput.trim(),
      tag: pair ? `${pair.key}:${pair.value}` : tagInput.trim(),
      language: languageInput.trim(),
      timeZone: timeZoneInput.trim(),
    });
    pages.reset();
  };
  const filtered = status !== 'all' || Object.values(filter).some((value) => value !== '');
  const remove = useDeleteSubscriber(app.id);

  return (
    <section className="panel">
      <div className="panel-heading">
        <h2>{t('subscribers.title')}</h2>
        <div className="heading-actions">
          <div className="field field-inline">
            <label htmlFor="status-filter">{t('subscribers.status')}</label>
            <select
              id="status-filter"
              value={status}
              onChange={(event) => {
                setStatus(event.target.value as StatusFilter);
                pages.reset();
              }}
            >
              <option value="all">{t('subscribers.all')}</option>
              <option value="active">{t('subscribers.active')}</option>
              <option value="expired">{t('subscribers.expired')}</option>
            </select>
          </div>
          {/* The session cookie authenticates the download: a plain link, saved under the API's file name. */}
          <a
            className="button"
            href={`/api/v1/apps/${encodeURIComponent(app.id)}/subscribers/export`}
            download
            title={t('subscribers.exportLabel')}
          >
            {t('subscribers.export')}
          </a>
        </div>
      </div>
      <form className="filter-form" onSubmit={applyFilter} aria-label={t('subscribers.filterLabel')}>
        <div className="field">
          <label htmlFor="uid-filter">{t('subscribers.uid')}</label>
          <input id="uid-filter" value={uidInput} onChange={(event) => setUidInput(event.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="tag-filter">{t('subscribers.tag')}</label>
          <input
            id="tag-filter"
            placeholder="lang=ja"
            value={tagInput}
            onChange={(event) => setTagInput(event.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="language-filter">{t('subscribers.language')}</label>
          <input
            id="language-filter"
            placeholder="ja"
            aria-describedby="language-filter-hint"
            list="language-tags"
            value={languageInput}
            onChange={(event) => setLanguageInput(event.target.value)}
          />
          <LanguageTagList id="language-tags" language={language} />
        </div>
        <div className="field">
          <label htmlFor="time-zone-filter">{t('subscribers.timeZone')}</label>
          <input
            id="time-zone-filter"
            placeholder="Asia/Tokyo"
            list="time-zone-names"
            value={timeZoneInput}
            onChange={(event) => setTimeZoneInput(event.target.value)}
          />
          <TimeZoneList id="time-zone-names" />
        </div>
        <button type="submit" className="button">
          {t('subscribers.filter')}
        </button>
        <p id="language-filter-hint" className="hint filter-hint">
          {t('subscribers.languageHint')}
        </p>
      </form>
      <Loaded
        query={list}
        lines={6}
        isEmpty={(data) => data.subscribers.length === 0}
        empty={
          <p className="empty" data-testid="subscribers-empty">
            {filtered ? (
              t('subscribers.noMatch')
            ) : (
              <>
                {t('subscribers.empty')}{' '}
                {rich('subscribers.emptyNext', {
                  tryIt: <Link to={`/apps/${app.id}/try`}>{t('subscribers.tryIt')}</Link>,
                  snippet: <Link to={`/apps/${app.id}`}>{t('subscribers.snippet')}</Link>,
                })}
              </>
            )}
          </p>
        }
      >
        {(data) => (
          <>
            <DataTable
              className="subscribers-table"
              columns={[
                t('subscribers.colService'),
                t('subscribers.colEndpoint'),
                t('subscribers.colStatus'),
                t('subscribers.colUid'),
                t('subscribers.colTags'),
                t('subscribers.colLocale'),
                t('subscribers.colVapid'),
                t('subscribers.colSubscribed'),
              ]}
              actions={t('subscribers.colActions')}
            >
              {data.subscribers.map((subscriber) => (
                <tr key={subscriber.id}>
                  <td>{pushServiceOf(subscriber.endpoint) ?? t('subscribers.unknownService')}</td>
                  <td className="endpoint" title={subscriber.endpoint}>
                    {subscriber.endpoint}
                  </td>
                  <td>
                    <span className={`status status-${subscriber.status}`}>
                      {t(`subscribers.status.${subscriber.status}` as MessageKey)}
                    </span>
                  </td>
                  <td className="uid">{subscriber.uid ?? <span className="muted">—</span>}</td>
                  <td>
                    {Object.keys(subscriber.tags).length === 0 ? (
                      <span className="muted">—</span>
                    ) : (
                      <span className="tag-list">
                        {Object.entries(subscriber.tags).map(([key, value]) => (
                          <code key={key}>
                            {key}={value}
                          </code>
                        ))}
                      </span>
                    )}
                  </td>
                  <td className="locale">
                    {subscriber.language === null && subscriber.timeZone === null ? (
                      <span className="muted">—</span>
                    ) : (
                      <>
                        <span>{subscriber.language ?? '—'}</span>
                        <span className="muted">{subscriber.timeZone ?? '—'}</span>
                      </>
                    )}
                  </td>
                  <td title={subscriber.vapidPublicKey ?? undefined}>
                    {subscriber.vapidPublicKey === null ? (
                      <span className="muted">{t('subscribers.vapidDeleted')}</span>
                    ) : subscriber.vapidPublicKey === app.vapidPublicKey ? (
                      t('subscribers.vapidCurrent')
                    ) : (
                      rich('subscribers.vapidEarlier', { key: <code>…{subscriber.vapidPublicKey.slice(-8)}</code> })
                    )}
                  </td>
                  <td>{dateTime(subscriber.createdAt)}</td>
                  <td className="actions">
                    {roleAllows(app.role, 'admin') && (
                      <ConfirmButton
                        label={t('subscribers.delete')}
                        ariaLabel={t('subscribers.deleteLabel', { id: subscriber.id })}
                        title={t('subscribers.deleteTitle')}
                        confirmLabel={t('subscribers.deleteConfirm')}
                        onConfirm={() => remove(subscriber.id)}
                      >
                        <p>{t('subscribers.deleteBody')}</p>
                      </ConfirmButton>
                    )}
                  </td>
                </tr>
              ))}
            </DataTable>
            <Pager
              label={t('subscribers.pager')}
              pageNumber={pages.pageNumber}
              nextCursor={data.nextCursor}
              onNewer={pages.newer}
              onOlder={pages.older}
            />
          </>
        )}
      </Loaded>
      <ImportSubscribers appId={app.id} />
    </section>
  );
}
