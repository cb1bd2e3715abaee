import t from 'tap';
import type { FetchLike } from '../src/api-client.js';
import { trackConversion } from '../src/conversions.js';
import { WebPushError } from '../src/errors.js';
import { ATTRIBUTION_WINDOW_MS, creditedClick, type LastClick } from '../src/last-click.js';
import { API_KEY, BASE_URL, json } from './fakes.js';

const CLICKED_AT = Date.UTC(2026, 10, 1, 12);
const click: LastClick = {
  baseUrl: BASE_URL,
  apiKey: API_KEY,
  notificationId: '0190a3c4-0000-7000-8000-000000000001',
  endpoint: 'https://fcm.googleapis.com/fcm/send/abc',
  clickedAt: CLICKED_AT,
};

t.test('a click is credited for 7 days after it, and not before it or after that', async (t) => {
  const day = 24 * 60 * 60 * 1000;
  t.equal(ATTRIBUTION_WINDOW_MS, 7 * day);
  t.equal(creditedClick(click, CLICKED_AT), click, 'at once');
  t.equal(creditedClick(click, CLICKED_AT + 6 * day), click, 'six days later');
  t.equal(creditedClick(click, CLICKED_AT + 7 * day), click, 'exactly seven days later');
  t.equal(creditedClick(click, CLICKED_AT + 7 * day + 1), null, 'a millisecond after the window');
  t.equal(creditedClick(click, CLICKED_AT - 1), null, 'a click stored in the future (the clock went back)');
  t.equal(creditedClick(undefined, CLICKED_AT), null, 'no click stored');
});

/** A fetch that records each call and answers with `answer`. */
function recordingFetch(answer = () => json(202, {})) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetch: FetchLike = async (url, init) => {
    calls.push({ url, init });
    return answer();
  };
  return { calls, fetch };
}

t.test('trackConversion reports to the clicked notification, with the value when given', async (t) => {
  const { calls, fetch } = recordingFetch();
  const env = { fetch, lastClick: async () => click, now: () => CLICKED_AT + 3 * 24 * 60 * 60 * 1000 };
  t.equal(await trackConversion(env, 19.99), true);
  t.equal(await trackConversion(env), true);
  t.strictSame(
    calls.map(({ url, init }) => [url, init.method, JSON.parse(String(init.body))]),
    [
      [
        `${BASE_URL}/api/v1/events`,
        'POST',
        { notificationId: click.notificationId, endpoint: click.endpoint, type: 'converted', value: 19.99 },
      ],
      [
        `${BASE_URL}/api/v1/events`,
        'POST',
        { notificationId: click.notificationId, endpoint: click.endpoint, type: 'converted' },
      ],
    ],
  );
  const headers = calls[0]?.init.headers as Record<string, string>;
  t.equal(headers.authorization, `Bearer ${API_KEY}`, "with the app's browser key");
  t.equal(calls[0]?.init.credentials, 'omit', 'no cookie is sent');
});

t.test('trackConversion sends nothing without a click in the last 7 days', async (t) => {
  const { calls, fetch } = recordingFetch();
  const late = { fetch, lastClick: async () => click, now: () => CLICKED_AT + ATTRIBUTION_WINDOW_MS + 1 };
  t.equal(await trackConversion(late, 5), false, 'too late');
  t.equal(await trackConversion({ ...late, lastClick: async () => undefined }, 5), false, 'never clicked');
  t.equal(calls.length, 0);
});

t.test("the API's refusal of a value is thrown as a WebPushError with its code", async (t) => {
  const { fetch } = recordingFetch(() => json(400, { error: '入力が不正です', code: 'INVALID_INPUT' }));
  const env = { fetch, lastClick: async () => click, now: () => CLICKED_AT };
  const error = await trackConversion(env, -1).catch((thrown: unknown) => thrown);
  t.type(error, WebPushError);
  t.match(error, { reason: 'api', code: 'INVALID_INPUT', status: 400 });
});
