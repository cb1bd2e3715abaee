import { appSubscriberCounted, subscriberCounted } from '@webpush/testing';
import { Secret, TOTP } from 'otpauth';
import t from 'tap';
import { assertError } from '../assertions.js';
import { bearer, buildTestApp, createApp, createKey, fakeSubscription, registerUser, subscribe } from '../helper.js';

// Leaving and erasing: DELETE /auth/me deletes the account and everything it owns in one
// transaction (its keys refused at once); DELETE /apps/:appId/subscribers?uid= erases a visitor.
const ctx = await buildTestApp(t, {
  RATE_LIMIT_LOGIN_MAX: '1000',
  RATE_LIMIT_REGISTER_MAX: '1000',
  RATE_LIMIT_API_KEY_MAX: '1000',
});
const { app } = ctx;
const sql = ctx.database.sql;

/** Every table with an `app_id` or `user_id` column, but the audit log, which outlives what it names. */
const tablesNaming = async (column: 'app_id' | 'user_id') =>
  (
    await sql<{ table_name: string }[]>`select table_name from information_schema.columns
      where table_schema = 'public' and column_name = ${column} and table_name <> 'audit_log'
        -- A partitioned table's rows are counted through it, not again through its partitions.
        and not exists (select 1 from pg_inherits i where i.inhrelid = format('%I', table_name)::regclass)
      order by table_name`
  ).map((row) => row.table_name);

const rowsNaming = async (column: 'app_id' | 'user_id', ids: string[]) => {
  const left: Record<string, number> = {};
  for (const table of await tablesNaming(column)) {
    const [row] = await sql<
      { n: number }[]
    >`select count(*)::int as n from ${sql(table)} where ${sql(column)} = any(${ids}::uuid[])`;
    if ((row?.n ?? 0) > 0) left[table] = row?.n ?? 0;
  }
  return left;
};

const notify = async (secret: string, payload: object = {}) => {
  const response = await app.inject({
    method: 'POST',
    url: '/api/v1/notify',
    headers: bearer(secret),
    payload: { title: 'Hello', body: 'World', ...payload },
  });
  if (response.statusCode !== 202) throw new Error(`notify: ${response.statusCode} ${response.body}`);
  return (response.json() as { notification: { id: string } }).notification.id;
};

/** An account with an app holding a bit of everything: keys, subscribers, sends, engagement, a webhook, a token. */
async function populatedAccount() {
  const owner = await registerUser(app);
  const created = await createApp(app, owner.token);
  const key = await createKey(app, owner.token, created.id, 'full');
  const visitor = await subscribe(app, key.secret, { ...fakeSubscription(), uid: 'visitor-1' });
  await subscribe(app, key.secret);
  const notificationId = await notify(key.secret);
  await notify(key.secret, { sendAt: new Date(Date.now() + 86_400_000).toISOString() });
  await sql`insert into notification_events (notification_id, subscription_id, type, app_id, notification_created_at)
    select id, ${visitor.id}, 'shown', app_id, created_at from notifications where id = ${notificationId}`;
  const webhook = await app.inject({
    method: 'PUT',
    url: `/api/v1/apps/${created.id}/webhook`,
    headers: bearer(owner.token),
    payload: { url: 'https://hooks.example.com/push', events: ['notification.completed'] },
  });
  if (webhook.statusCode !== 200) throw new Error(`webhook: ${webhook.statusCode} ${webhook.body}`);
  await sql`insert into webhook_messages (app_id, type, subject_id, dedupe_key)
    values (${created.id}, 'notification.completed', ${notificationId}, ${`test:${notificationId}`})`;
  const segment = await app.inject({
    method: 'POST',
    url: `/api/v1/apps/${created.id}/segments`,
    headers: bearer(owner.token),
    payload: { name: 'Japanese', segment: { language: 'ja' } },
  });
  if (segment.statusCode !== 201) throw new Error(`segment: ${segment.statusCode} ${segment.body}`);
  const token = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/tokens',
    headers: bearer(owner.token),
    payload: { name: 'CI' },
  });
  return { owner, created, key, accessToken: (token.json() as { secret: string }).secret };
}

const deleteMe = (token: string, payload?: object) =>
  app.inject({
    method: 'DELETE',
    url: '/api/v1/auth/me',
    headers: bearer(token),
    ...(payload === undefined ? {} : { payload }),
  });

t.test('DELETE /auth/me deletes the account and everything it owns; its keys are refused at once', async (t) => {
  const { owner, created, key, accessToken } = await populatedAccount();
  const bystander = await populatedAccount();
  // The key's principal is cached by this instance now.
  t.equal(
    (
      await app.inject({
        method: 'POST',
        url: '/api/v1/subscribe',
        headers: bearer(key.secret),
        payload: fakeSubscription(),
      })
    ).statusCode,
    201,
  );

  assertError(t, await deleteMe(owner.token, { password: 'not the password' }), 'INVALID_CREDENTIALS');
  assertError(t, await deleteMe(owner.token, {}), 'MISSING_FIELDS');
  t.same(
    await rowsNaming('app_id', [created.id]),
    {
      app_subscriber_counts: 1,
      // Its subscriptions have no time zone: one count, under ''.
      app_zone_subscriber_counts: 1,
      // The app's history per day (its subscribes today).
      app_day_stats: 1,
      subscriptions: 3,
      notifications: 2,
      notification_events: 1,
      api_keys: 1,
      segments: 1,
      webhooks: 1,
      webhook_messages: 1,
    },
    'nothing changed',
  );

  const response = await deleteMe(owner.token, { password: owner.password });
  t.equal(response.statusCode, 204);
  t.equal(response.body, '');

  t.strictSame(await rowsNaming('app_id', [created.id]), {}, 'no row of its app is left');
  t.strictSame(await rowsNaming('user_id', [owner.user.id]), {}, 'no row of the account is left');
  t.equal((await sql`select 1 from users where id = ${owner.user.id}`).length, 0);
  t.equal(
    (
      await sql`select 1 from notification_events e join subscriptions s on s.id = e.subscription_id where s.app_id = ${created.id}`
    ).length,
    0,
  );

  assertError(
    t,
    await app.inject({
      method: 'POST',
      url: '/api/v1/subscribe',
      headers: bearer(key.secret),
      payload: fakeSubscription(),
    }),
    'INVALID_API_KEY',
  );
  assertError(
    t,
    await app.inject({ method: 'GET', url: '/api/v1/auth/me', headers: bearer(owner.token) }),
    'INVALID_SESSION',
  );
  assertError(
    t,
    await app.inject({ method: 'GET', url: '/api/v1/apps', headers: bearer(accessToken) }),
    'INVALID_SESSION',
  );
  assertError(
    t,
    await app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: owner.email, password: owner.password },
    }),
    'INVALID_CREDENTIALS',
  );

  const [entry] =
    await sql`select action, actor_email, details from audit_log where user_id = ${owner.user.id} and action = 'account.deleted'`;
  t.strictSame(
    entry,
    { action: 'account.deleted', actor_email: null, details: { apps: 1 } },
    'recorded, without the e-mail',
  );

  const others = await rowsNaming('app_id', [bystander.created.id]);
  t.equal(others.subscriptions, 2, 'another account keeps everything');
  t.equal(
    (await app.inject({ method: 'GET', url: '/api/v1/apps', headers: bearer(bystander.owner.token) })).statusCode,
    200,
  );
});

t.test('an account without a password gives none; with two-factor sign-in on, a code is needed', async (t) => {
  const githubOnly = await registerUser(app);
  await createApp(app, githubOnly.token);
  await sql`update users set password_hash = null where id = ${githubOnly.user.id}`;
  t.equal((await deleteMe(githubOnly.token)).statusCode, 204, 'no body at all');
  t.equal((await sql`select 1 from users where id = ${githubOnly.user.id}`).length, 0);

  const careful = await registerUser(app);
  const setup = await app.inject({ method: 'POST', url: '/api/v1/auth/totp/setup', headers: bearer(careful.token) });
  const { secret } = setup.json() as { secret: string };
  const totp = new TOTP({ secret: Secret.fromBase32(secret) });
  const enabled = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/totp/enable',
    headers: bearer(careful.token),
    payload: { code: totp.generate() },
  });
  t.equal(enabled.statusCode, 200);
  assertError(t, await deleteMe(careful.token, { password: careful.password }), 'TOTP_REQUIRED');
  assertError(
    t,
    await deleteMe(careful.token, {
      password: careful.password,
      totp: '000000' === totp.generate() ? '111111' : '000000',
    }),
    'INVALID_CREDENTIALS',
  );
  t.equal((await sql`select 1 from users where id = ${careful.user.id}`).length, 1, 'still there');
  t.equal((await deleteMe(careful.token, { password: careful.password, totp: totp.generate() })).statusCode, 204);
  t.equal((await sql`select 1 from users where id = ${careful.user.id}`).length, 0);
});

t.test(
  'DELETE /apps/:appId/subscribers?uid= erases the visitor: rows and engagement deleted, counts exact',
  async (t) => {
    const owner = await registerUser(app);
    const created = await createApp(app, owner.token);
    const key = await createKey(app, owner.token, created.id, 'full');
    const erased = [
      await subscribe(app, key.secret, { ...fakeSubscription(), uid: 'visitor-7' }),
      await subscribe(app, key.secret, { ...fakeSubscription(), uid: 'visitor-7' }),
      await subscribe(app, key.secret, { ...fakeSubscription(), uid: 'visitor-7' }),
    ];
    const kept = await subscribe(app, key.secret, { ...fakeSubscription(), uid: 'visitor-8' });
    // Expired as the worker expires one: out of `active`, its slot given back to the owner.
    await sql`update subscriptions set status = 'expired', expired_at = now() where id = ${erased[2]?.id ?? ''}`;
    await sql`select release_subscriber_slots(${owner.user.id}::uuid, 1)`;
    const notificationId = await notify(key.secret);
    for (const subscription of [...erased, kept])
      await sql`insert into notification_events (notification_id, subscription_id, type, app_id, notification_created_at)
      select id, ${subscription.id}, 'clicked', app_id, created_at from notifications where id = ${notificationId}`;
    await sql`insert into webhook_messages (app_id, type, subject_id, dedupe_key, data)
    values (${created.id}, 'subscription.expired', ${erased[2]?.id ?? ''}, 'test:erased',
      ${JSON.stringify({ subscriber: { id: erased[2]?.id ?? '', endpoint: erased[2]?.endpoint ?? '', uid: 'visitor-7' } })}::jsonb)`;

    const erase = (uid: string | undefined, token = owner.token, appId = created.id) =>
      app.inject({
        method: 'DELETE',
        url: `/api/v1/apps/${appId}/subscribers${uid === undefined ? '' : `?uid=${encodeURIComponent(uid)}`}`,
        headers: bearer(token),
      });
    assertError(t, await erase(undefined), 'MISSING_FIELDS');
    assertError(t, await erase('x'.repeat(129)), 'INVALID_INPUT');
    const stranger = await registerUser(app);
    assertError(t, await erase('visitor-7', stranger.token), 'NOT_FOUND');
    t.equal((await sql`select 1 from subscriptions where uid = 'visitor-7'`).length, 3, 'nothing changed');

    const response = await erase('visitor-7');
    t.equal(response.statusCode, 200);
    t.strictSame(response.json(), { deleted: 3 });
    t.equal(
      (await sql`select 1 from subscriptions where app_id = ${created.id} and uid = 'visitor-7'`).length,
      0,
      'deleted, not expired',
    );
    t.equal(
      (await sql`select 1 from notification_events where subscription_id = any(${erased.map((s) => s.id)}::uuid[])`)
        .length,
      0,
      'and their engagement',
    );
    t.equal(
      (await sql`select 1 from notification_events where subscription_id = ${kept.id}`).length,
      1,
      'another visitor keeps theirs',
    );
    t.equal(
      (await sql`select 1 from webhook_messages where app_id = ${created.id} and data::text like '%visitor-7%'`).length,
      0,
      'no event names them',
    );
    const appCount = await appSubscriberCounted(sql, created.id);
    t.equal(appCount.counter, appCount.real, 'the app’s subscriber count stays exact');
    t.equal(appCount.real, 1);
    const ownerCount = await subscriberCounted(sql, owner.user.id);
    t.equal(ownerCount.counter, ownerCount.real, 'and the owner’s');

    const [entry] =
      await sql`select action, target_type, details, actor_id from audit_log where app_id = ${created.id} and action = 'subscribers.erased'`;
    t.strictSame(entry, {
      action: 'subscribers.erased',
      target_type: 'subscribers',
      details: { deleted: 3 },
      actor_id: owner.user.id,
    });
    t.notOk(
      JSON.stringify(await sql`select * from audit_log where app_id = ${created.id}`).includes('visitor-7'),
      'the log never names the uid',
    );

    t.strictSame((await erase('visitor-7')).json(), { deleted: 0 }, 'again: nothing left');
  },
);
