import type { AppRole } from '@webpush/db';
import { unusedPort } from '@webpush/testing';
import type { RouteOptions } from 'fastify';
import t from 'tap';
import { appRoles, roleAllows } from '../../src/routes/apps/_appId/app-roles.js';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, createApp, createKey, fakeSubscription, registerUser, subscribe } from '../helper.js';

// Teams: every route of /apps/:appId/** declares the least role it needs, the `_appId` hook
// enforces it, and this file walks the route tree to hit each route with each role.
const API = '/api/v1';
const APP_ROUTE = `${API}/apps/:appId`;
const deadPort = await unusedPort();

const declared: { key: string; role: AppRole | undefined; waived: boolean }[] = [];
const statements: string[] = [];
const ctx = await buildTestApp(
  t,
  {
    RATE_LIMIT_LOGIN_MAX: '10000',
    RATE_LIMIT_REGISTER_MAX: '10000',
    RATE_LIMIT_SESSION_WRITE_MAX: '10000',
    PUSH_SERVICE_HOSTS: `fcm.googleapis.com,localhost:${deadPort}`,
  },
  {
    onQuery: (query: string) => statements.push(query),
    onRoute: (route: RouteOptions) => {
      if (route.url !== APP_ROUTE && !route.url.startsWith(`${APP_ROUTE}/`)) return;
      for (const method of [route.method].flat()) {
        if (method === 'HEAD') continue;
        declared.push({
          key: `${method} ${route.url.slice(API.length).replace(/\/$/, '')}`,
          role: route.config?.appRole,
          waived: route.config?.appRoleWaivedForSelf === true,
        });
      }
    },
  },
);
const { app } = ctx;
const sql = ctx.database.sql;

const owner = await registerUser(app);
// Several apps for the owner (DELETE /apps/:appId takes one per try): a plan without an app limit.
await sql`update users set plan = 'enterprise' where id = ${owner.user.id}`;
const people = {
  admin: await registerUser(app),
  editor: await registerUser(app),
  viewer: await registerUser(app),
  stranger: await registerUser(app),
};
type Who = 'owner' | keyof typeof people;
const tokenOf = (who: Who) => (who === 'owner' ? owner.token : people[who].token);

async function teamApp() {
  const made = await createApp(app, owner.token);
  for (const role of ['admin', 'editor', 'viewer'] as const)
    await sql`insert into app_members (app_id, user_id, role) values (${made.id}, ${people[role].user.id}, ${role})`;
  return made;
}
const shared = await teamApp();
const key = await createKey(app, owner.token, shared.id, 'full');
await subscribe(app, key.secret);
const base = `${API}/apps/${shared.id}`;

const asOwner = async (method: 'POST' | 'PUT' | 'DELETE', path: string, payload?: object) => {
  const response = await app.inject({ method, url: `${base}${path}`, headers: bearer(owner.token), payload });
  if (response.statusCode >= 300) throw new Error(`${method} ${path}: ${response.statusCode} ${response.body}`);
  return response.json() as Record<string, { id: string }>;
};
const setWebhook = () =>
  asOwner('PUT', '/webhook', { url: 'https://example.com/hook', events: ['notification.completed'] });
async function freshMember() {
  const member = await registerUser(app);
  await sql`insert into app_members (app_id, user_id, role) values (${shared.id}, ${member.user.id}, 'viewer')`;
  return member.user.id;
}

interface Probe {
  url: string;
  payload?: object;
}
/**
 * A request each route answers with success when the role allows it; fixtures the request needs
 * (a key to revoke, a segment to delete) are made first, as the owner. Keyed as Fastify names routes.
 */
const probes: Record<string, { make: () => Promise<Probe>; allowedAnswer?: (status: number) => boolean }> = {
  'GET /apps/:appId': { make: async () => ({ url: base }) },
  'PATCH /apps/:appId': { make: async () => ({ url: base, payload: { name: 'Renamed' } }) },
  'DELETE /apps/:appId': { make: async () => ({ url: `${API}/apps/${(await teamApp()).id}` }) },
  'GET /apps/:appId/audit-log': { make: async () => ({ url: `${base}/audit-log` }) },
  'POST /apps/:appId/identity-secret': { make: async () => ({ url: `${base}/identity-secret` }) },
  'GET /apps/:appId/keys': { make: async () => ({ url: `${base}/keys` }) },
  'POST /apps/:appId/keys': { make: async () => ({ url: `${base}/keys`, payload: { scope: 'notify' } }) },
  'DELETE /apps/:appId/keys/:keyId': {
    make: async () => ({ url: `${base}/keys/${(await asOwner('POST', '/keys', { scope: 'notify' })).key?.id}` }),
  },
  'GET /apps/:appId/members': { make: async () => ({ url: `${base}/members` }) },
  'POST /apps/:appId/members': {
    make: async () => ({
      url: `${base}/members`,
      payload: { email: `invited-${Math.random()}@example.com`, role: 'viewer' },
    }),
  },
  'PATCH /apps/:appId/members/:userId': {
    make: async () => ({ url: `${base}/members/${await freshMember()}`, payload: { role: 'editor' } }),
  },
  'DELETE /apps/:appId/members/:userId': { make: async () => ({ url: `${base}/members/${await freshMember()}` }) },
  'GET /apps/:appId/notifications': { make: async () => ({ url: `${base}/notifications` }) },
  'POST /apps/:appId/notifications': {
    make: async () => ({ url: `${base}/notifications`, payload: { title: 'Hi', body: 'There' } }),
  },
  'DELETE /apps/:appId/notifications/:id': {
    make: async () => {
      const sendAt = new Date(Date.now() + 3_600_000).toISOString();
      const scheduled = await asOwner('POST', '/notifications', { title: 'Later', body: 'Soon', sendAt });
      return { url: `${base}/notifications/${scheduled.notification?.id}` };
    },
  },
  'GET /apps/:appId/segments': { make: async () => ({ url: `${base}/segments` }) },
  'POST /apps/:appId/segments': {
    make: async () => ({ url: `${base}/segments`, payload: { name: 'Fans', segment: { tag: 'fan' } } }),
  },
  'POST /apps/:appId/segments/count': {
    make: async () => ({ url: `${base}/segments/count`, payload: { segment: { tag: 'fan' } } }),
  },
  'PATCH /apps/:appId/segments/:segmentId': {
    make: async () => {
      const saved = await asOwner('POST', '/segments', { name: 'Renamed', segment: { tag: 'renamed' } });
      return { url: `${base}/segments/${saved.segment?.id}`, payload: { name: 'Renamed again' } };
    },
  },
  'DELETE /apps/:appId/segments/:segmentId': {
    make: async () => {
      const saved = await asOwner('POST', '/segments', { name: 'Gone', segment: { tag: 'gone' } });
      return { url: `${base}/segments/${saved.segment?.id}` };
    },
  },
  'GET /apps/:appId/subscribers': { make: async () => ({ url: `${base}/subscribers` }) },
  'DELETE /apps/:appId/subscribers': { make: async () => ({ url: `${base}/subscribers?uid=erased-visitor` }) },
  'GET /apps/:appId/stats': { make: async () => ({ url: `${base}/stats?days=7` }) },
  'GET /apps/:appId/notifications/:id': {
    make: async () => {
      const sent = await asOwner('POST', '/notifications', { title: 'Read', body: 'Me' });
      return { url: `${base}/notifications/${sent.notification?.id}` };
    },
  },
  'GET /apps/:appId/subscribers/export': { make: async () => ({ url: `${base}/subscribers/export` }) },
  'POST /apps/:appId/subscribers/import': {
    make: async () => {
      const sub = fakeSubscription();
      return {
        url: `${base}/subscribers/import`,
        payload: { subscribers: [{ endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } }] },
      };
    },
  },
  'DELETE /apps/:appId/subscribers/:subscriberId': {
    make: async () => ({ url: `${base}/subscribers/${(await subscribe(app, key.secret)).id}` }),
  },
  'POST /apps/:appId/test-notification': {
    make: async () => {
      const sub = fakeSubscription();
      return {
        url: `${base}/test-notification`,
        payload: {
          subscription: { endpoint: `https://localhost:${deadPort}/push/1`, p256dh: sub.p256dh, auth: sub.auth },
        },
      };
    },
    // Pushed to a port nobody listens on: the push fails, after the role allowed it.
    allowedAnswer: (status) => status === 502,
  },
  'GET /apps/:appId/usage': { make: async () => ({ url: `${base}/usage` }) },
  'POST /apps/:appId/vapid-key/rotate': { make: async () => ({ url: `${base}/vapid-key/rotate` }) },
  'GET /apps/:appId/webhook': { make: async () => ({ url: `${base}/webhook` }) },
  'PUT /apps/:appId/webhook': {
    make: async () => ({
      url: `${base}/webhook`,
      payload: { url: 'https://example.com/hook', events: ['notification.completed'] },
    }),
  },
  'DELETE /apps/:appId/webhook': {
    make: async () => {
      await setWebhook();
      return { url: `${base}/webhook` };
    },
  },
  'GET /apps/:appId/webhook/deliveries': { make: async () => ({ url: `${base}/webhook/deliveries` }) },
  'POST /apps/:appId/webhook/deliveries/:deliveryId/retry': {
    make: async () => ({ url: `${base}/webhook/deliveries/00000000-0000-4000-8000-000000000000/retry` }),
    // No such delivery: past the role check, the route answers for the delivery.
    allowedAnswer: (status) => status === 404,
  },
  'POST /apps/:appId/webhook/resume': {
    make: async () => {
      await setWebhook();
      return { url: `${base}/webhook/resume` };
    },
  },
  'POST /apps/:appId/webhook/rotate-secret': {
    make: async () => {
      await setWebhook();
      return { url: `${base}/webhook/rotate-secret` };
    },
  },
};

/** What a refused request must leave as it was: the app and everything a route could write. */
const state = async () =>
  sql`select
    (select row_to_json(a) from (select name, vapid_public_key, identity_secret_sealed from apps where id = ${shared.id}) a) as app,
    (select count(*) from apps) as apps,
    (select count(*) from audit_log) as audit,
    (select count(*) from api_keys) as keys,
    (select count(*) from app_members) as members,
    (select count(*) from app_invitations) as invitations,
    (select count(*) from notifications) as notifications,
    (select count(*) from notifications where status = 'canceled') as canceled,
    (select count(*) from segments) as segments,
    (select count(*) from subscriptions) as subscriptions,
    (select count(*) from webhooks) as webhooks`;

t.test('every route under /apps/:appId declares the least role it needs', async (t) => {
  t.ok(declared.length >= 30, `${declared.length} routes seen`);
  for (const route of declared) {
    t.ok(route.role !== undefined && appRoles.includes(route.role), `${route.key} declares appRole (${route.role})`);
  }
  t.strictSame(
    declared.map((route) => route.key).sort(),
    Object.keys(probes).sort(),
    'the matrix below probes exactly the routes of the tree',
  );
});

t.test('the role matrix: allowed roles succeed, others get 403 and change nothing, strangers 404', async (t) => {
  const matrix: string[] = [];
  for (const route of declared) {
    const needed = route.role ?? 'owner';
    const [method, path] = route.key.split(' ') as [string, string];
    const probe = probes[route.key];
    if (!probe) continue;
    const cells: string[] = [];
    for (const who of ['viewer', 'editor', 'admin', 'owner', 'stranger'] as const) {
      const request = await probe.make();
      const before = await state();
      const response = await app.inject({
        method: method as 'GET',
        url: request.url,
        headers: bearer(tokenOf(who)),
        ...(request.payload ? { payload: request.payload } : {}),
      });
      const label = `${route.key} as ${who}`;
      if (who === 'stranger') {
        assertError(t, response, 'NOT_FOUND');
        t.strictSame(await state(), before, `${label}: nothing changed`);
        cells.push('404');
      } else if (roleAllows(who, needed)) {
        const ok = probe.allowedAnswer?.(response.statusCode) ?? response.statusCode < 300;
        t.ok(ok, `${label}: allowed (${response.statusCode} ${response.body.slice(0, 120)})`);
        cells.push(String(response.statusCode));
      } else {
        assertError(t, response, 'FORBIDDEN');
        t.strictSame(await state(), before, `${label}: refused, nothing changed`);
        cells.push('403');
      }
    }
    matrix.push(`| ${method} ${path} | ${needed} | ${cells.join(' | ')} |`);
  }
  t.comment(['| route | needs | viewer | editor | admin | owner | stranger |', ...matrix].join('\n'));
});

t.test('anyone may leave an app; removing someone else needs admin', async (t) => {
  const leaver = await registerUser(app);
  const other = await freshMember();
  await sql`insert into app_members (app_id, user_id, role) values (${shared.id}, ${leaver.user.id}, 'viewer')`;
  const removeOther = await app.inject({
    method: 'DELETE',
    url: `${base}/members/${other}`,
    headers: bearer(leaver.token),
  });
  assertError(t, removeOther, 'FORBIDDEN');
  const leave = await app.inject({
    method: 'DELETE',
    url: `${base}/members/${leaver.user.id}`,
    headers: bearer(leaver.token),
  });
  t.equal(leave.statusCode, 204);
  assertError(t, await app.inject({ method: 'GET', url: base, headers: bearer(leaver.token) }), 'NOT_FOUND');
});

t.test('a personal access token acts as its user: a member, with their role', async (t) => {
  const made = await app.inject({
    method: 'POST',
    url: `${API}/auth/tokens`,
    headers: bearer(people.viewer.token),
    payload: { name: 'CI' },
  });
  const { secret } = made.json() as { secret: string };
  const read = await app.inject({ method: 'GET', url: base, headers: bearer(secret) });
  t.equal(read.statusCode, 200);
  t.equal((read.json() as { app: { role: string } }).app.role, 'viewer');
  assertError(
    t,
    await app.inject({ method: 'POST', url: `${base}/keys`, headers: bearer(secret), payload: { scope: 'full' } }),
    'FORBIDDEN',
  );
  const list = await app.inject({ method: 'GET', url: `${API}/apps`, headers: bearer(secret) });
  t.ok(
    (list.json() as { apps: { id: string; role: string }[] }).apps.some(
      (a) => a.id === shared.id && a.role === 'viewer',
    ),
  );
});

t.test('the role check rides on the app lookup: no statement more for a member than for the owner', async (t) => {
  const sent: Record<string, string[]> = {};
  for (const who of ['owner', 'viewer', 'owner', 'viewer'] as const) {
    statements.length = 0;
    const response = await app.inject({ method: 'GET', url: `${base}/webhook`, headers: bearer(tokenOf(who)) });
    t.equal(response.statusCode, 200, who);
    sent[who] = statements.filter((query) => !/^\s*update sessions/i.test(query) && !/pg_catalog\.pg_type/.test(query));
  }
  t.equal(sent.viewer?.length, sent.owner?.length, `the same statements: ${sent.viewer?.join(' | ')}`);
  t.equal(
    sent.viewer?.filter((query) => query.includes('app_members')).length,
    1,
    'one statement reads the role, with the app',
  );
});
