import { useI18n, usePageTitle } from '../../i18n/index.js';
import { useCurrentApp } from '../apps/use-apps.js';
import { AuditEntries } from './audit-entries.js';
import { useAppAuditLog } from './use-audit-log.js';

/** Who changed what in the app (the owner and admins; the tab is hidden from editors and viewers). */
export function AuditLogPage() {
  const app = useCurrentApp();
  const { t } = useI18n();
  usePageTitle(`${t('audit.title')} · ${app.name}`);
  const log = useAppAuditLog(app.id);
  return (
    <section className="panel" aria-labelledby="audit-title">
      <h2 id="audit-title">{t('audit.title')}</h2>
      <p className="hint">{t('audit.lead')}</p>
      <AuditEntries query={log} label={t('audit.title')} />
    </section>
  );
}
