import { execFile } from 'node:child_process';
import { createPrivateKey, sign } from 'node:crypto';
import { request } from 'node:https';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import webpush from 'web-push';
import { type FakePushService, type FakeSubscription, startFakePushService } from '../src/fake-push-service.js';

// The stand-in is checked against web-push, a third implementation, so that neither our sender
// nor the stand-in is only ever checked against the other.

const vapid = webpush.generateVAPIDKeys();
const subject = 'mailto:ops@example.com';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function post(
  service: FakePushService,
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  method = 'POST',
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, ca: service.caPem, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString() }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A correct request for `subscription`, built by web-push. */
function details(
  subscription: FakeSubscription,
  payload: string,
  options: { TTL?: number; urgency?: webpush.Urgency; topic?: string } = {},
) {
  const built = webpush.generateRequestDetails(
    { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } },
    payload,
    {
      vapidDetails: { subject, publicKey: vapid.publicKey, privateKey: vapid.privateKey },
      contentEncoding: 'aes128gcm',
      ...options,
    },
  );
  return { headers: built.headers as Record<string, string>, body: built.body as Buffer };
}

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A VAPID header with chosen claims, signed with `signingKey` (default: the key `k` names). */
function craftedAuthorization(claims: Record<string, unknown>, signingKey = vapid): string {
  const point = Buffer.from(signingKey.publicKey, 'base64url');
  const key = createPrivateKey({
    format: 'jwk',
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33).toString('base64url'),
      d: signingKey.privateKey,
    },
  });
  const input = `${b64({ typ: 'JWT', alg: 'ES256' })}.${b64(claims)}`;
  const signature = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url');
  return `vapid t=${input}.${signature}, k=${vapid.publicKey}`;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

t.test('fake push service', async (t) => {
  const service = await startFakePushService();
  t.teardown(() => service.close());

  t.test('accepts a correct message, decrypts it and records headers and claims', async (t) => {
    const sub = service.subscribe();
    t.match(sub.endpoint, new RegExp(`^https://localhost:${service.port}/push/`));
    const before = service.received.length;
    const { headers, body } = details(sub, '{"title":"こんにちは"}', { TTL: 120, urgency: 'high', topic: 'news' });
    const answer = await post(service, sub.endpoint, headers, body);
    t.equal(answer.status, 201);
    t.match(answer.headers.location, new RegExp(`^${service.origin}/message/`));
    const message = service.received[before];
    t.ok(message, 'recorded');
    t.equal(message?.payload, '{"title":"こんにちは"}');
    t.equal(message?.ttl, 120);
    t.equal(message?.urgency, 'high');
    t.equal(message?.topic, 'news');
    t.equal(message?.vapidPublicKey, vapid.publicKey);
    t.equal(message?.claims.aud, service.origin);
    t.equal(message?.claims.sub, subject);
    t.ok((message?.claims.exp ?? 0) > nowSeconds());
    t.same(service.deliveredTo(sub.id).length, 1);
    t.same(service.protocolErrors, []);
  });

  /** Sends with a replaced header or body; expects `status`, one new protocol error and nothing recorded. */
  const refused = async (
    t: Test,
    status: number,
    reason: RegExp,
    change: (request: { headers: Record<string, string>; body: Buffer }) => void,
  ) => {
    const sub = service.subscribe();
    const built = details(sub, 'secret');
    change(built);
    const errors = service.protocolErrors.length;
    const received = service.received.length;
    const answer = await post(service, sub.endpoint, built.headers, built.body);
    t.equal(answer.status, status);
    t.equal(service.protocolErrors.length, errors + 1, 'counted as a protocol error');
    t.match(service.protocolErrors.at(-1), { subscriptionId: sub.id, reason });
    t.equal(service.received.length, received, 'not recorded as received');
  };

  t.test('refuses a JWT signed by another key than k', (t) =>
    refused(t, 403, /signature/, (r) => {
      r.headers.Authorization = craftedAuthorization(
        { aud: service.origin, exp: nowSeconds() + 3600, sub: subject },
        webpush.generateVAPIDKeys(),
      );
    }),
  );

  t.test('refuses a tampered JWT claim', (t) =>
    refused(t, 403, /signature/, (r) => {
      const [scheme = '', rest = ''] = (r.headers.Authorization ?? '').split('t=');
      const [jwt = '', k = ''] = rest.split(', k=');
      const [head, , signature] = jwt.split('.');
      const claims = b64({ aud: service.origin, exp: nowSeconds() + 3600, sub: 'mailto:evil@example.com' });
      r.headers.Authorization = `${scheme}t=${head}.${claims}.${signature}, k=${k}`;
    }),
  );

  t.test('refuses a wrong aud', (t) =>
    refused(t, 403, /aud/, (r) => {
      r.headers.Authorization = craftedAuthorization({
        aud: 'https://fcm.googleapis.com',
        exp: nowSeconds() + 3600,
        sub: subject,
      });
    }),
  );

  t.test('refuses an expired exp', (t) =>
    refused(t, 403, /expired/, (r) => {
      r.headers.Authorization = craftedAuthorization({ aud: service.origin, exp: nowSeconds() - 1, sub: subject });
    }),
  );

  t.test('refuses an exp more than 24 h ahead', (t) =>
    refused(t, 403, /24 h/, (r) => {
      r.headers.Authorization = craftedAuthorization({
        aud: service.origin,
        exp: nowSeconds() + 24 * 3600 + 120,
        sub: subject,
      });
    }),
  );

  t.test('refuses a sub that is neither mailto: nor https:', (t) =>
    refused(t, 403, /sub/, (r) => {
      r.headers.Authorization = craftedAuthorization({ aud: service.origin, exp: nowSeconds() + 60, sub: 'ops' });
    }),
  );

  t.test('refuses a non-vapid Authorization', (t) =>
    refused(t, 401, /vapid/, (r) => {
      r.headers.Authorization = 'WebPush abc';
    }),
  );

  t.test('refuses a body encrypted for another subscription', (t) =>
    refused(t, 400, /decrypt/, (r) => {
      r.body = details(service.subscribe(), 'secret').body;
    }),
  );

  t.test('refuses a corrupted ciphertext', (t) =>
    refused(t, 400, /decrypt/, (r) => {
      const last = r.body.length - 1;
      r.body[last] = (r.body[last] ?? 0) ^ 0x01;
    }),
  );

  t.test('refuses a missing TTL and a content coding other than aes128gcm', async (t) => {
    await refused(t, 400, /TTL/, (r) => {
      delete r.headers.TTL;
    });
    await refused(t, 400, /Content-Encoding/, (r) => {
      r.headers['Content-Encoding'] = 'aesgcm';
    });
  });

  t.test('answers 404 for an endpoint it does not know, without a protocol error', async (t) => {
    const built = details(service.subscribe(), 'x');
    const errors = service.protocolErrors.length;
    const answer = await post(service, `${service.origin}/push/unknown`, built.headers, built.body);
    t.equal(answer.status, 404);
    t.equal(service.protocolErrors.length, errors);
  });

  t.test('scripted answers are consumed in order, then 201 again', async (t) => {
    const sub = service.subscribe();
    service.script(sub.id, { status: 429, retryAfter: '7' }, { status: 500, times: 2 }, { status: 410 });
    const statuses: number[] = [];
    let retryAfter: unknown;
    for (let i = 0; i < 5; i++) {
      const built = details(sub, `m${i}`);
      const answer = await post(service, sub.endpoint, built.headers, built.body);
      statuses.push(answer.status);
      if (i === 0) retryAfter = answer.headers['retry-after'];
    }
    t.same(statuses, [429, 500, 500, 410, 201]);
    t.equal(retryAfter, '7');
    t.same(
      service.deliveredTo(sub.id).map((m) => m.payload),
      ['m4'],
    );
    t.same(
      service.received.filter((m) => m.subscriptionId === sub.id).map((m) => m.status),
      [429, 500, 500, 410, 201],
    );
  });

  t.test('a delayed answer arrives after the delay', async (t) => {
    const sub = service.subscribe();
    service.script(sub.id, { status: 201, delayMs: 300 });
    const built = details(sub, 'slow');
    const started = Date.now();
    const answer = await post(service, sub.endpoint, built.headers, built.body);
    t.equal(answer.status, 201);
    t.ok(Date.now() - started >= 290, 'waited');
  });

  t.test('a child process trusts it through NODE_EXTRA_CA_CERTS, and only then', async (t) => {
    const script = `require('node:https').get('${service.origin}/push/x', (r) => { console.log(r.statusCode); r.resume(); })
      .on('error', (e) => { console.log(e.code); });`;
    const run = promisify(execFile);
    const trusted = await run(process.execPath, ['-e', script], {
      env: { ...process.env, NODE_EXTRA_CA_CERTS: service.certPath },
    });
    t.equal(trusted.stdout.trim(), '405', 'TLS accepted; GET is not a push');
    const { NODE_EXTRA_CA_CERTS: _ignored, ...withoutExtra } = process.env;
    const untrusted = await run(process.execPath, ['-e', script], { env: withoutExtra });
    t.match(untrusted.stdout.trim(), /CERT|SELF_SIGNED/);
  });
});
