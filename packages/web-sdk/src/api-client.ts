import { WebPushError } from './errors.js';

/** Where the SDK (and the service worker) send subscriptions: the service's origin and an app's API key. */
export interface ApiTarget {
  baseUrl: string;
  apiKey: string;
}

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/**
 * One call to the service's browser-facing API. A request that never got an answer (offline, DNS,
 * CORS refused) is `network`; an answer that is not 2xx is `api` with the API's error `code`.
 */
export async function callApi(
  fetchApi: FetchLike,
  target: ApiTarget,
  method: 'GET' | 'POST' | 'DELETE',
  path: string,
  body?: unknown,
): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = { authorization: `Bearer ${target.apiKey}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetchApi(`${target.baseUrl.replace(/\/+$/, '')}/api/v1${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
    });
  } catch (cause) {
    throw new WebPushError('network', `${method} ${path} got no answer`, { cause });
  }
  const text = await response.text().catch(() => '');
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!response.ok) {
    const answer = parsed as { code?: unknown; error?: unknown } | undefined;
    const code = typeof answer?.code === 'string' ? answer.code : undefined;
    const message = typeof answer?.error === 'string' ? answer.error : `HTTP ${response.status}`;
    throw new WebPushError('api', `${method} ${path}: ${code ?? response.status} ${message}`, {
      code,
      status: response.status,
    });
  }
  return { status: response.status, body: parsed };
}

export async function fetchVapidKey(fetchApi: FetchLike, target: ApiTarget): Promise<string> {
  const { body } = (await callApi(fetchApi, target, 'GET', '/vapid-public-key')) as {
    body: { vapidPublicKey?: unknown } | undefined;
  };
  if (typeof body?.vapidPublicKey !== 'string') {
    throw new WebPushError('api', 'the API answered without a VAPID public key');
  }
  return body.vapidPublicKey;
}
