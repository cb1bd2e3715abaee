import type { AuditEntry } from '@webpush/db';

/** An audit entry as the API shows it (apps/api/src/schemas/audit-log.ts). */
export const publicAuditEntry = (entry: AuditEntry) => ({
  id: entry.id,
  at: entry.at.toISOString(),
  actor: entry.actor,
  action: entry.action,
  target: entry.target,
  details: entry.details,
  ip: entry.ip,
});
