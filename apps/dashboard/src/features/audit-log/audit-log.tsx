import { useI18n, usePageTitle } from '../../i18n/index.js';
import { useCurrentApp } from '../apps/use-apps.js';
import { AuditEntries } from './audit-entries.js';

/** Who changed what in the app (the owner and admins; the tab is hidden from editors and viewers). */
export function AuditLogPage() {
  const app = useCurrentApp();
  const { t } = useI18n();
  usePageTitle(`${t('audit.title')} · ${app.name}`);
  return (
    <section className="panel" aria-labelledby="audit-title">
      <h2 id="audit-title">{t('audit.title')}</h2>
      <p className="hint">{t('audit.lead')}</p>
      <AuditEntries source={{ appId: app.id }} label={t('audit.title')} />
    </section>
  );
}
