import { useRef, useState } from 'react';
import { DataTable } from '../../components/data-table.js';
import { ErrorMessage, ErrorPanel } from '../../components/error-panel.js';
import { Skeleton } from '../../components/skeleton.js';
import { catalogues, type I18n, type MessageKey, useI18n } from '../../i18n/index.js';
import { type AuditEntry, type AuditSource, useAuditLog } from './use-audit-log.js';
import './audit-log.css';

type Actor = AuditEntry['actor'];

/** Ids are UUIDs: the first block tells entries apart on screen; the whole id is the cell's title. */
const shortId = (id: string) => id.split('-')[0] ?? id;

export function actorName(actor: Actor, t: I18n['t']): string {
  if (actor.type === 'user') return actor.email;
  if (actor.type === 'key') return t('audit.actor.key', { id: shortId(actor.id) });
  return actor.id === 'admin-cli' ? t('audit.actor.cli') : t('audit.actor.operator');
}

/** The action in words when the catalogue knows it (new actions still show, by their name). */
export function actionName(action: string, t: I18n['t']): string {
  const key = `audit.action.${action}`;
  return key in catalogues.en ? t(key as MessageKey) : action;
}

/** What the change was made to: its name (a key's, a token's), an e-mail or a URL, else its id. */
function targetText(entry: AuditEntry): string | null {
  if (!entry.target) return null;
  const named = ['name', 'email', 'url']
    .map((field) => entry.details[field])
    .find((value) => typeof value === 'string');
  if (typeof named === 'string') return named;
  return entry.target.id ? shortId(entry.target.id) : null;
}

/**
 * An audit log, newest first: filters by action and by who acted (the API filters, so older
 * entries are found too), and "Load older entries" while there are more.
 */
export function AuditEntries({ source, label }: { source: AuditSource; label: string }) {
  const { t, dateTime } = useI18n();
  const [action, setAction] = useState('');
  const [actor, setActor] = useState('');
  const query = useAuditLog(source, { ...(action ? { action } : {}), ...(actor ? { actor } : {}) });
  // The choices are what the log has shown so far: a filtered page does not take the others away.
  const seen = useRef({ actions: new Set<string>(), actors: new Map<string, Actor>() });
  if (query.isPending) return <Skeleton lines={4} />;
  // A failed older page keeps the entries loaded so far on screen, with its error below them.
  if (query.data === undefined) return <ErrorPanel error={query.error} onRetry={() => void query.refetch()} />;
  const entries = query.data.pages.flatMap((page) => page.entries);
  const filtered = action !== '' || actor !== '';
  if (entries.length === 0 && !filtered) return <p className="empty">{t('audit.empty')}</p>;
  for (const entry of entries) {
    seen.current.actions.add(entry.action);
    seen.current.actors.set(entry.actor.id, entry.actor);
  }
  const actions = [...seen.current.actions].sort();
  const actors = [...seen.current.actors.entries()];
  const shown = entries;
  return (
    <>
      <div className="audit-filters">
        <div className="field">
          <label htmlFor="audit-action">{t('audit.filterAction')}</label>
          <select id="audit-action" value={action} onChange={(event) => setAction(event.target.value)}>
            <option value="">{t('audit.allActions')}</option>
            {actions.map((name) => (
              <option key={name} value={name}>
                {actionName(name, t)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="audit-actor">{t('audit.filterActor')}</label>
          <select id="audit-actor" value={actor} onChange={(event) => setActor(event.target.value)}>
            <option value="">{t('audit.allActors')}</option>
            {actors.map(([id, who]) => (
              <option key={id} value={id}>
                {actorName(who, t)}
              </option>
            ))}
          </select>
        </div>
      </div>
      <p className="hint" role="status">
        {t('audit.shown', { shown: shown.length })}
      </p>
      {shown.length === 0 ? (
        <p className="empty">{t('audit.noMatch')}</p>
      ) : (
        <DataTable
          label={label}
          className="audit-table"
          columns={[t('audit.at'), t('audit.actor'), t('audit.action'), t('audit.target'), t('audit.ip')]}
        >
          {shown.map((entry) => {
            const target = targetText(entry);
            return (
              <tr key={entry.id} data-testid="audit-row" data-action={entry.action}>
                <td className="nowrap">
                  <time dateTime={entry.at}>{dateTime(entry.at)}</time>
                </td>
                <td className="audit-actor" title={entry.actor.id}>
                  {actorName(entry.actor, t)}
                </td>
                <td>
                  {actionName(entry.action, t)}
                  <code className="audit-code">{entry.action}</code>
                </td>
                <td className="audit-target" title={entry.target?.id ?? undefined}>
                  {entry.target ? (
                    <>
                      <code>{entry.target.type}</code> {target}
                    </>
                  ) : (
                    <span className="muted">—</span>
                  )}
                </td>
                <td className="nowrap">{entry.ip ?? <span className="muted">—</span>}</td>
              </tr>
            );
          })}
        </DataTable>
      )}
      {query.hasNextPage && (
        <p className="audit-more">
          <button
            type="button"
            className="button button-small"
            onClick={() => void query.fetchNextPage()}
            disabled={query.isFetchingNextPage}
          >
            {query.isFetchingNextPage ? t('common.loading') : t('audit.loadOlder')}
          </button>
        </p>
      )}
      <ErrorMessage error={query.isFetchNextPageError ? query.error : null} />
    </>
  );
}
