import type { ApiTarget } from './api-client.js';

/**
 * The notification this browser last clicked, which a conversion is credited to. The service
 * worker writes it on `notificationclick` into the site's own IndexedDB (same origin as the page,
 * never a cookie and never shared with another site); `trackConversion()` reads it there.
 */
export interface LastClick extends ApiTarget {
  notificationId: string;
  /** The subscription that was pushed to, which the API counts the conversion for. */
  endpoint: string;
  /** Milliseconds since the epoch. */
  clickedAt: number;
}

/** A click older than this earns no conversion. */
export const ATTRIBUTION_WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

/** The click a conversion at `now` is credited to: one made at most 7 days before, or none. */
export function creditedClick(click: LastClick | undefined, now: number): LastClick | null {
  if (!click) return null;
  const age = now - click.clickedAt;
  return age >= 0 && age <= ATTRIBUTION_WINDOW_MS ? click : null;
}

const DATABASE = 'webpush';
const STORE = 'attribution';
const KEY = 'lastClick';

function open(factory: IDBFactory): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = factory.open(DATABASE, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function inStore<T>(
  factory: IDBFactory,
  mode: IDBTransactionMode,
  use: (store: IDBObjectStore) => IDBRequest<T>,
): Promise<T> {
  const database = await open(factory);
  try {
    return await new Promise<T>((resolve, reject) => {
      const transaction = database.transaction(STORE, mode);
      const request = use(transaction.objectStore(STORE));
      transaction.oncomplete = () => resolve(request.result);
      transaction.onerror = () => reject(transaction.error);
      transaction.onabort = () => reject(transaction.error);
    });
  } finally {
    database.close();
  }
}

export async function saveLastClick(factory: IDBFactory, click: LastClick): Promise<void> {
  await inStore(factory, 'readwrite', (store) => store.put(click, KEY));
}

/** What the worker stored, when it has the shape it was stored with (the site's own code shares the origin). */
export async function readLastClick(factory: IDBFactory): Promise<LastClick | undefined> {
  const stored = (await inStore(factory, 'readonly', (store) => store.get(KEY))) as Partial<LastClick> | undefined;
  const strings = [stored?.notificationId, stored?.endpoint, stored?.baseUrl, stored?.apiKey];
  if (!strings.every((value) => typeof value === 'string') || typeof stored?.clickedAt !== 'number') return undefined;
  return stored as LastClick;
}
