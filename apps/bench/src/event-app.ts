import { randomBytes } from 'node:crypto';
import type { Sql } from 'postgres';
import { call } from './measure-accept.js';

/** Subscriptions of the app the event phases write for: each send reaches all of them. */
export const EVENT_APP_SUBSCRIPTIONS = 10_000;
/** Event rows an `INSERT … SELECT` writes at most. */
const EVENTS_BATCH = 1_000_000;

/**
 * What the phases that write events in bulk start from: an account and app made through the API,
 * 10,000 subscriptions written straight into the table, and one send scheduled through the API
 * then canceled, whose row the phase copies as many times as it needs (`notificationId`).
 */
export async function eventApp(
  apiUrl: string,
  sql: Sql,
  label: string,
): Promise<{ token: string; appId: string; notificationId: string }> {
  const email = `bench-${label}-${randomBytes(4).toString('hex')}@example.com`;
  const { token } = await call<{ token: string }>(
    apiUrl,
    '/auth/register',
    null,
    { email, password: `bench ${label} password` },
    201,
  );
  const { app } = await call<{ app: { id: string } }>(apiUrl, '/apps', token, { name: `bench ${label}` }, 201);
  const sendAt = new Date(Date.now() + 86_400_000).toISOString();
  const { notification } = await call<{ notification: { id: string } }>(
    apiUrl,
    `/apps/${app.id}/notifications`,
    token,
    { title: 'Bench', body: label, sendAt },
    202,
  );
  await sql`insert into subscriptions (app_id, endpoint, p256dh, auth)
    select ${app.id}::uuid, ${`https://${label}.bench.invalid/push/`} || n, 'p256dh-' || n, 'auth-' || n
    from generate_series(1, ${EVENT_APP_SUBSCRIPTIONS}::int) as n`;
  await sql`update notifications set status = 'canceled' where id = ${notification.id}`;
  return { token, appId: app.id, notificationId: notification.id };
}

/**
 * `total` `shown` events of the sends `sendIds` (each to every subscription of the app, in order,
 * until `total`), written by PostgreSQL a million rows a statement; returns how many it wrote.
 */
export async function writeShownEvents(
  sql: Sql,
  appId: string,
  sendIds: string[],
  total: number,
  progress: (written: number) => void,
): Promise<number> {
  const perBatch = Math.max(1, Math.floor(EVENTS_BATCH / EVENT_APP_SUBSCRIPTIONS));
  let written = 0;
  for (let first = 0; first < sendIds.length && written < total; first += perBatch) {
    const batch = sendIds.slice(first, first + perBatch);
    const limit = Math.min(total - written, batch.length * EVENT_APP_SUBSCRIPTIONS);
    const result = await sql`insert into notification_events (notification_id, subscription_id, type, created_at,
        app_id, notification_created_at)
      select n.id, s.id, 'shown', n.created_at, n.app_id, n.created_at
      from notifications n cross join subscriptions s
      where n.id = any(${batch}::uuid[]) and s.app_id = ${appId}
      limit ${limit}`;
    written += result.count;
    progress(written);
  }
  return written;
}
