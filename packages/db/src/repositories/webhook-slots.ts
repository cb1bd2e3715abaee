import type { Database } from '../client.js';

/**
 * Takes one of the app's `slots` webhook slots for `token` until `leaseMs` from now
 * (`take_webhook_slot`, migration 0043): null when taken, or else how long (ms, by the database's
 * clock) the oldest attempt holding one has been running.
 */
export async function takeWebhookSlot(
  db: Database,
  appId: string,
  token: string,
  slots: number,
  leaseMs: number,
): Promise<number | null> {
  const [row] = await db.$client<{ age: string }[]>`
    select take_webhook_slot(${appId}::uuid, ${token}::uuid, ${slots}::int, ${leaseMs}::int) as age`;
  const age = Number(row?.age ?? -1);
  return age < 0 ? null : age;
}

/** Frees the slot `token` took; nothing when its lease already ended. */
export async function giveWebhookSlot(db: Database, appId: string, token: string): Promise<void> {
  await db.$client`delete from webhook_app_slots where app_id = ${appId}::uuid and token = ${token}::uuid`;
}
