import { createECDH } from 'node:crypto';
import { Writable } from 'node:stream';
import { createSession, createUser } from '@webpush/db';
import { errorCatalogue, errorDetails } from '@webpush/errors';
import { generateToken, SESSION_TOKEN_PREFIX } from '@webpush/secrets';
import { createIsolatedResources, quietFor, startFakePushService, testConfig } from '@webpush/testing';
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import t from 'tap';
import { buildApp } from '../src/app.js';
import {
  contentEncodings,
  contentTypes,
  hostileString,
  hostileValue,
  idempotencyKeys,
  type JsonSchema,
  mutatedBody,
  pathSegment,
  rawBody,
  valueFor,
} from './fuzz/arbitraries.js';
import { bearer, createApp, createKey, uniqueEmail } from './helper.js';

/**
 * Property-based fuzz of every operation in the OpenAPI document: each kind of credential,
 * path ids real and hostile, query strings, headers, and bodies built from the route's schema then
 * mutated (every JSON type in every field, NUL, lone surrogates, invalid UTF-8, huge strings and
 * numbers, deep nesting, duplicate and prototype keys, odd content types and encodings).
 *
 * The contract: no 5xx but the specified 502/503, every error body exactly `{error, code}` from the
 * catalogue (+ `upgrade_url` on the plan-limit codes) with the catalogue's status (415 for a wrong
 * content type), no unhandled rejection, and `/readyz` still 200 afterwards.
 *
 * Fixed seed; `FUZZ_RUNS` (runs per operation, default 60) and `FUZZ_SEED` for a deeper run.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const SEED = Number(process.env.FUZZ_SEED ?? 20_261_122);

// A long run (FUZZ_RUNS=…) takes longer than the runner's default file timeout.
if (process.env.FUZZ_RUNS) t.setTimeout(0);

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
process.on('unhandledRejection', onUnhandled);
t.teardown(() => process.off('unhandledRejection', onUnhandled));

// The app's own error log, so a failure shows what the handler hit (the body never says).
const logged: { level: number; msg: string; err?: { message?: string } }[] = [];
const logStream = new Writable({
  write(chunk, _encoding, done) {
    for (const line of chunk.toString().split('\n')) if (line) logged.push(JSON.parse(line));
    done();
  },
});

const push = await startFakePushService();
t.teardown(() => push.close());
const resources = await createIsolatedResources();
const config = testConfig(resources, {
  PUSH_SERVICE_HOSTS: push.hostRule,
  RATE_LIMIT_API_KEY_MAX: '1000000',
  RATE_LIMIT_LOGIN_MAX: '1000000',
  RATE_LIMIT_REGISTER_MAX: '1000000',
  GITHUB_CLIENT_ID: 'fuzz-client',
  GITHUB_CLIENT_SECRET: 'fuzz-secret',
  GITHUB_TOKEN_URL: 'http://127.0.0.1:9/token', // nothing listens: GitHub failures are GITHUB_AUTH_FAILED
  GITHUB_API_URL: 'http://127.0.0.1:9',
});
const app = await buildApp(config, { logger: { level: 'warn', stream: logStream }, pushExtraCa: push.caPem });
t.teardown(async () => {
  await app.close();
  await resources.dispose();
});
await app.ready();

const subscribed = push.subscribe();
const neverSubscribed = push.subscribe();
// A key pair a new app may bring (`vapidKeys`), so that schema-built bodies also create apps with it.
const broughtKeys = createECDH('prime256v1');
broughtKeys.generateKeys();

/**
 * A user with a live session, made straight in the database: registering through the API would pay
 * for an argon2 hash every time a fuzzed logout or delete makes the fixtures start over.
 */
async function quickUser() {
  const user = await createUser(app.db, { email: uniqueEmail('fuzz'), passwordHash: 'not-a-password-hash' });
  if (!user) throw new Error('could not create a fuzz user');
  const token = generateToken(SESSION_TOKEN_PREFIX);
  await createSession(
    app.db,
    {
      userId: user.id,
      tokenHash: app.secrets.hash(token),
      expiresAt: new Date(Date.now() + 3_600_000),
    },
    null,
  );
  return { user, token };
}

/** Real rows the fuzz aims at; rebuilt when a request deleted one of them or ended the session. */
async function makeFixtures() {
  const owner = await quickUser();
  const ownerApp = await createApp(app, owner.token);
  const keys = {
    subscribe_only: await createKey(app, owner.token, ownerApp.id, 'subscribe_only'),
    notify: await createKey(app, owner.token, ownerApp.id, 'notify'),
    full: await createKey(app, owner.token, ownerApp.id, 'full'),
  };
  const other = await quickUser();
  const otherApp = await createApp(app, other.token);
  const otherKey = await createKey(app, other.token, otherApp.id, 'full');
  const subscribe = await app.inject({
    method: 'POST',
    url: '/api/v1/subscribe',
    headers: bearer(keys.full.secret),
    payload: { endpoint: subscribed.endpoint, p256dh: subscribed.p256dh, auth: subscribed.auth },
  });
  const notify = await app.inject({
    method: 'POST',
    url: '/api/v1/notify',
    headers: bearer(keys.full.secret),
    payload: { title: 't', body: 'b' },
  });
  const segment = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${ownerApp.id}/segments`,
    headers: bearer(owner.token),
    payload: { name: 'Japanese speakers', segment: { language: 'ja' } },
  });
  if (subscribe.statusCode >= 300 || notify.statusCode !== 202 || segment.statusCode !== 201)
    throw new Error('fixtures failed');
  return {
    credentials: {
      none: {},
      garbageBearer: { authorization: 'Bearer wpk_garbage' },
      garbageSession: { authorization: 'Bearer wps_garbage' },
      malformed: { authorization: 'Basic Zm9vOmJhcg==' },
      session: bearer(owner.token),
      sessionCookie: { cookie: `wp_session=${owner.token}` },
      otherSession: bearer(other.token),
      subscribeOnlyKey: bearer(keys.subscribe_only.secret),
      notifyKey: bearer(keys.notify.secret),
      fullKey: bearer(keys.full.secret),
      otherAppKey: bearer(otherKey.secret),
    } as Record<string, Record<string, string>>,
    ids: {
      ownerApp: ownerApp.id,
      otherApp: otherApp.id,
      subscribeOnlyKeyId: keys.subscribe_only.key.id,
      fullKeyId: keys.full.key.id,
      otherKeyId: otherKey.key.id,
      subscriber: (subscribe.json() as { subscriber: { id: string } }).subscriber.id,
      notification: (notify.json() as { notification: { id: string } }).notification.id,
      segment: (segment.json() as { segment: { id: string } }).segment.id,
      owner: owner.user.id,
    } as Record<string, string>,
  };
}
let fixtures = await makeFixtures();
const credentialNames = Object.keys(fixtures.credentials);
/** Credentials that match a security scheme: the fuzz sends these most, so requests get past auth. */
const credentialsFor: Record<string, string[]> = {
  apiKey: ['subscribeOnlyKey', 'notifyKey', 'fullKey', 'fullKey', 'otherAppKey'],
  session: ['session', 'session', 'otherSession'],
  sessionCookie: ['sessionCookie'],
};
const idNames = Object.keys(fixtures.ids);

/** Values a field of that name plausibly takes, so schema-built bodies also get past validation. */
const knownValues: Record<string, unknown[]> = {
  email: ['owner@example.com', 'Owner@Example.COM', 'ownеr@example.com'],
  password: ['correct horse battery', 'short', 'p'.repeat(129)],
  scope: ['subscribe_only', 'notify', 'full', 'admin'],
  p256dh: [subscribed.p256dh],
  auth: [subscribed.auth],
  endpoint: [subscribed.endpoint, neverSubscribed.endpoint],
  name: ['My app', '   ', ''],
  language: ['ja-JP', 'ja', 'JA-jp', 'zh-Hant-TW', 'x'.repeat(36), 'ja_JP', null],
  timeZone: ['Asia/Tokyo', 'UTC', 'Etc/UTC', 'asia/tokyo', 'Mars/Base', '+09:00', 'US/Eastern', null],
  appBadge: [0, 5, 999, 1000, -1, 1.5],
  segment: [
    { language: 'ja' },
    { and: [{ tag: 'plan', equals: 'pro' }, { not: { tag: 'country', in: ['US', 'CA'] } }] },
    { or: [{ timeZone: 'Asia/Tokyo' }, { subscribedWithinDays: 7 }, { uid: ['u1'] }, { tag: 'beta' }] },
    { not: { not: { not: { not: { not: { not: { tag: 'a' } } } } } } },
    { timeZone: 'Nowhere/Land' },
  ],
  translations: [
    { ja: { title: 'こんにちは', body: '本文' }, 'pt-BR': { title: 'Olá', url: 'https://example.com/pt' } },
    { ja: { title: 'あ'.repeat(2000) } },
    { ja: { title: 'x' }, JA: { title: 'y' } },
  ],
  publicKey: [broughtKeys.getPublicKey().toString('base64url')],
  privateKey: [broughtKeys.getPrivateKey().toString('base64url')],
};

type Operation = {
  method: string;
  path: string;
  pathParams: string[];
  query: Record<string, JsonSchema>;
  headers: Record<string, JsonSchema>;
  body?: JsonSchema;
  documented: Set<string>;
  /** Security scheme names of the operation (apiKey, session, sessionCookie); empty for public routes. */
  security: string[];
};

interface OpenApiOperation {
  parameters?: { in: string; name: string; schema?: JsonSchema }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  responses?: Record<string, unknown>;
  security?: Record<string, string[]>[];
}

const document = app.swagger() as { paths: Record<string, Record<string, OpenApiOperation>> };
const operations: Operation[] = Object.entries(document.paths).flatMap(([path, methods]) =>
  Object.entries(methods).map(([method, operation]) => {
    const parameters = operation.parameters ?? [];
    const of = (where: string) =>
      Object.fromEntries(parameters.filter((p) => p.in === where).map((p) => [p.name, p.schema ?? {}]));
    return {
      method: method.toUpperCase(),
      path,
      pathParams: parameters.filter((p) => p.in === 'path').map((p) => p.name),
      query: of('query'),
      headers: of('header'),
      body: operation.requestBody?.content?.['application/json']?.schema,
      documented: new Set(Object.keys(operation.responses ?? {})),
      security: (operation.security ?? []).flatMap((requirement) => Object.keys(requirement)),
    };
  }),
);

/** Lets a schema-built object take the known values of its fields' names. */
function withKnownValues(schema: JsonSchema | undefined): JsonSchema | undefined {
  if (!schema || typeof schema !== 'object') return schema;
  const copy: JsonSchema = { ...schema };
  if (copy.properties) {
    copy.properties = Object.fromEntries(
      Object.entries(copy.properties).map(([name, property]) => {
        const known = knownValues[name];
        const inner = withKnownValues(property) as JsonSchema;
        return [name, known ? { anyOf: [{ enum: known }, { enum: known }, inner] } : inner];
      }),
    );
  }
  if (copy.items) copy.items = withKnownValues(copy.items);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    if (copy[key]) copy[key] = copy[key]?.map((part) => withKnownValues(part) as JsonSchema);
  }
  return copy;
}

const endpoints = [subscribed.endpoint, neverSubscribed.endpoint];
const encode = (value: string) => {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80'; // a lone surrogate has no UTF-8: send the bytes of its encoding instead
  }
};

function requestArbitrary(operation: Operation) {
  const matching = operation.security.flatMap((scheme) => credentialsFor[scheme] ?? []);
  if (matching.length === 0) matching.push('none');
  const bodySchema = withKnownValues(operation.body);
  const validBody = valueFor(bodySchema, endpoints);
  const body = fc.oneof(
    { arbitrary: validBody.map((value) => ({ kind: 'json' as const, value })), weight: 3 },
    { arbitrary: mutatedBody(validBody).map((value) => ({ kind: 'json' as const, value })), weight: 5 },
    { arbitrary: rawBody(validBody).map((value) => ({ kind: 'raw' as const, value })), weight: 2 },
    { arbitrary: hostileValue.map((value) => ({ kind: 'json' as const, value })), weight: 1 },
    { arbitrary: fc.constant({ kind: 'none' as const, value: undefined }), weight: operation.body ? 1 : 6 },
  );
  const queryValue = (schema: JsonSchema) =>
    fc.oneof(valueFor(schema, endpoints).map(String), hostileString, fc.integer().map(String));
  const query = fc.record(
    Object.fromEntries(
      Object.entries(operation.query).map(([name, schema]) => [
        name,
        fc.option(queryValue(schema), { nil: undefined }),
      ]),
    ),
  );
  return fc.record({
    credential: fc.oneof(
      { arbitrary: fc.constantFrom(...credentialNames), weight: 1 },
      { arbitrary: fc.constantFrom(...matching), weight: matching.length > 0 ? 4 : 0 },
    ),
    segments: fc.tuple(...operation.pathParams.map(() => pathSegment(idNames.map((name) => `@${name}`)))),
    query,
    extraQuery: fc.option(fc.tuple(hostileString, hostileString), { nil: undefined }),
    body,
    contentType: fc.oneof(
      { arbitrary: fc.constant('application/json'), weight: 5 },
      { arbitrary: contentTypes, weight: 1 },
    ),
    contentEncoding: contentEncodings,
    idempotencyKey: idempotencyKeys,
  });
}

type Sample = ReturnType<typeof requestArbitrary> extends fc.Arbitrary<infer S> ? S : never;

/** `@ownerApp` → the current fixture id (`@ownerApp` upper-cased → the id upper-cased). */
function resolveSegment(segment: string): string {
  if (!segment.startsWith('@')) return segment;
  const wanted = segment.slice(1).toLowerCase();
  const name = Object.keys(fixtures.ids).find((key) => key.toLowerCase() === wanted);
  const value = fixtures.ids[name ?? ''] ?? 'missing';
  return segment === segment.toUpperCase() ? value.toUpperCase() : value;
}

function toInject(operation: Operation, sample: Sample): InjectOptions {
  let url = operation.path;
  operation.pathParams.forEach((name, index) => {
    url = url.replace(`{${name}}`, resolveSegment(String(sample.segments[index])));
  });
  const pairs = Object.entries(sample.query).filter(([, value]) => value !== undefined) as [string, string][];
  if (sample.extraQuery) pairs.push(sample.extraQuery);
  if (pairs.length > 0) url += `?${pairs.map(([key, value]) => `${encode(key)}=${encode(value)}`).join('&')}`;

  const headers: Record<string, string> = { ...fixtures.credentials[sample.credential] };
  let payload: string | Buffer | undefined;
  if (sample.body.kind === 'json') payload = JSON.stringify(sample.body.value) ?? 'null';
  if (sample.body.kind === 'raw') payload = sample.body.value;
  if (payload !== undefined && sample.contentType !== undefined) headers['content-type'] = sample.contentType;
  if (sample.contentEncoding !== undefined) headers['content-encoding'] = sample.contentEncoding;
  if (sample.idempotencyKey !== undefined) headers['idempotency-key'] = sample.idempotencyKey;
  return { method: operation.method as InjectOptions['method'], url, headers, payload };
}

const allowed5xx = new Set(['GITHUB_AUTH_FAILED', 'PUSH_FAILED', 'OAUTH_NOT_CONFIGURED', 'CONFIG_ERROR']);
const planLimitCodes = new Set(['PLAN_LIMIT_EXCEEDED', 'MONTHLY_LIMIT_EXCEEDED', 'SUBSCRIBER_LIMIT_EXCEEDED']);

/** Why the answer breaks the contract, or null. */
function contractBreach(operation: Operation, response: LightMyRequestResponse): string | null {
  const status = response.statusCode;
  if (status < 400) {
    return operation.documented.has(String(status)) ? null : `undocumented success status ${status}`;
  }
  let body: Record<string, unknown>;
  try {
    body = response.json();
  } catch {
    return `${status} with a non-JSON body`;
  }
  const code = String(body.code);
  const entry = errorCatalogue[code as keyof typeof errorCatalogue];
  if (!entry) return `${status} with code ${code} not in the catalogue`;
  if (status >= 500 && !allowed5xx.has(code)) return `${status} ${code}`;
  const expectedStatus = status === 415 && code === 'INVALID_INPUT' ? 415 : entry.status;
  if (status !== expectedStatus) return `${code} answered ${status}, catalogue says ${entry.status}`;
  const expectedKeys = planLimitCodes.has(code) ? ['code', 'error', 'upgrade_url'] : ['code', 'error'];
  if (Object.keys(body).sort().join() !== expectedKeys.join()) return `${code} body keys ${Object.keys(body).sort()}`;
  const detailMessages = Object.values(errorDetails)
    .filter((detail) => detail.code === code)
    .map((detail) => detail.message as string);
  if (body.error !== entry.message && !detailMessages.includes(String(body.error)))
    return `${code} with another message`;
  if (!/^application\/json; charset=utf-8$/.test(String(response.headers['content-type']))) {
    return `${code} with content type ${response.headers['content-type']}`;
  }
  return null;
}

const describe = (options: InjectOptions) => {
  const payload = options.payload;
  const shown = Buffer.isBuffer(payload) ? `<bytes ${payload.subarray(0, 120).toString('hex')}>` : String(payload);
  return `${options.method} ${String(options.url).slice(0, 200)} ${JSON.stringify(options.headers).slice(0, 300)} ${shown.slice(0, 300)}`;
};

const failures = new Map<string, { count: number; example: string; cause?: string }>();
const statuses = new Map<number, number>();
let requests = 0;
let skipped = 0;

for (const [index, operation] of operations.entries()) {
  t.test(`${operation.method} ${operation.path}`, async (t) => {
    await fc.assert(
      fc.asyncProperty(requestArbitrary(operation), async (sample) => {
        const options = toInject(operation, sample);
        let response: LightMyRequestResponse;
        const logMark = logged.length;
        try {
          response = await app.inject(options);
        } catch (error) {
          // Header values Node's HTTP client cannot even write (a real client could not send them either).
          if ((error as { code?: string }).code?.startsWith('ERR_INVALID')) {
            skipped++;
            return;
          }
          throw error;
        }
        requests++;
        statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
        const breach = contractBreach(operation, response);
        if (breach) {
          const signature = `${operation.method} ${operation.path}: ${breach}`;
          const cause = logged
            .slice(logMark)
            .map((entry) => `${entry.msg}: ${entry.err?.message ?? ''}`)
            .join(' | ');
          const seen = failures.get(signature);
          if (seen) seen.count++;
          else failures.set(signature, { count: 1, example: describe(options), cause });
        }
        const destructive = options.method === 'DELETE' || String(options.url).includes('/logout');
        if (destructive && response.statusCode < 300) fixtures = await makeFixtures();
      }),
      { seed: SEED + index, numRuns: RUNS },
    );
    t.comment(`answers: ${JSON.stringify(Object.fromEntries(statuses))}`);
    statuses.clear();
    const mine = [...failures].filter(([signature]) => signature.startsWith(`${operation.method} ${operation.path}:`));
    t.strictSame(
      mine.map(([signature, detail]) => `${signature} (×${detail.count}) e.g. ${detail.example} — ${detail.cause}`),
      [],
      `${operation.method} ${operation.path}: ${RUNS} runs keep the contract`,
    );
  });
}

t.test('the process stays healthy', async (t) => {
  t.ok(operations.length >= 15, `the OpenAPI document has ${operations.length} operations, all fuzzed`);
  const ready = await app.inject({ method: 'GET', url: '/readyz' });
  t.equal(ready.statusCode, 200, 'readyz answers 200 after the fuzz');
  await quietFor(50, 'no unhandled rejection surfaces late');
  t.strictSame(unhandled.map(String), [], 'no unhandled rejection');
  t.comment(
    `fuzz: seed ${SEED}, ${RUNS} runs × ${operations.length} operations, ${requests} requests (${skipped} unsendable), ${failures.size} distinct failures`,
  );
});
