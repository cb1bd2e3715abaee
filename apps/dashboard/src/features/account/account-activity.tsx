import { useI18n } from '../../i18n/index.js';
import { AuditEntries } from '../audit-log/audit-entries.js';

/** The account's own audit log: sign-ins, password, two-factor and token changes, an operator's. */
export function AccountActivity() {
  const { t } = useI18n();
  return (
    <section className="panel" aria-labelledby="activity-title">
      <h3 id="activity-title">{t('audit.accountTitle')}</h3>
      <p className="hint">{t('audit.accountLead')}</p>
      <AuditEntries source="account" label={t('audit.accountTitle')} />
    </section>
  );
}
