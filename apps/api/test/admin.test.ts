import { readFileSync } from 'node:fs';
import { createDatabase, createUser } from '@webpush/db';
import { createIsolatedResources, runNode } from '@webpush/testing';
import t from 'tap';

const root = new URL('../../../', import.meta.url).pathname;

/** The exact command line of `pnpm admin`, from the root package.json, run with this node. */
function adminCommand(): string[] {
  const manifest = JSON.parse(readFileSync(`${root}package.json`, 'utf8')) as { scripts: Record<string, string> };
  const [program, ...args] = (manifest.scripts.admin ?? '').split(/\s+/);
  if (program !== 'node') throw new Error(`unexpected admin script: ${manifest.scripts.admin}`);
  return args;
}

function runAdmin(databaseUrl: string, args: string[]) {
  return runNode([...adminCommand(), ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
  });
}

t.test('pnpm admin set-plan', async (t) => {
  const resources = await createIsolatedResources();
  const database = createDatabase(resources.databaseUrl, { max: 1 });
  t.teardown(async () => {
    await database.close();
    await resources.dispose();
  });
  const owner = await createUser(database.db, { email: 'owner@example.com', passwordHash: 'x' });
  const bystander = await createUser(database.db, { email: 'bystander@example.com', passwordHash: 'x' });
  if (!owner || !bystander) throw new Error('could not create the users');

  const planOf = async (email: string) => {
    const rows = await database.sql<{ plan: string }[]>`select plan from users where email = ${email}`;
    return rows[0]?.plan;
  };
  const run = (...args: string[]) => runAdmin(resources.databaseUrl, args);

  t.test('moves the user and prints the new plan', async (t) => {
    const result = await run('set-plan', 'owner@example.com', 'pro');
    t.equal(result.code, 0, result.stderr);
    t.equal(result.stdout.trim(), 'owner@example.com is now on the pro plan');
    t.equal(await planOf('owner@example.com'), 'pro');
    t.equal(await planOf('bystander@example.com'), 'free', 'nobody else moves');
  });

  t.test("is recorded in the account's audit log as an operator's change", async (t) => {
    await database.sql`insert into apps (user_id, name, vapid_public_key, vapid_private_key_sealed)
      values (${owner.id}, 'Site', 'pub', 'sealed')`;
    const result = await run('set-plan', 'owner@example.com', 'pro');
    t.equal(result.code, 0, result.stderr);
    const entries = await database.sql<
      { app_id: string | null; user_id: string | null; actor_type: string; actor_id: string }[]
    >`
      select app_id, user_id, actor_type, actor_id from audit_log
      where action = 'account.plan_changed' and (user_id = ${owner.id} or app_id in (select id from apps where user_id = ${owner.id}))
      order by at desc, id desc limit 2`;
    t.equal(entries.length, 2, "one entry in the app's log, one in the account's");
    for (const entry of entries) t.strictSame([entry.actor_type, entry.actor_id], ['operator', 'admin-cli']);
  });

  t.test('normalises the e-mail as the API stores it', async (t) => {
    const result = await run('set-plan', '  Owner@Example.COM ', 'enterprise');
    t.equal(result.code, 0, result.stderr);
    t.equal(result.stdout.trim(), 'owner@example.com is now on the enterprise plan');
    t.equal(await planOf('owner@example.com'), 'enterprise');
  });

  t.test('refuses, non-zero and clearly, what it cannot do', async (t) => {
    const [unknownUser, unknownPlan, noArgs, missingPlan, tooMany, unknownCommand] = await Promise.all([
      run('set-plan', 'nobody@example.com', 'pro'),
      run('set-plan', 'bystander@example.com', 'gold'),
      run(),
      run('set-plan', 'bystander@example.com'),
      run('set-plan', 'bystander@example.com', 'pro', 'extra'),
      run('set-planz', 'bystander@example.com', 'pro'),
    ]);

    t.equal(unknownUser.code, 1);
    t.match(unknownUser.stderr, /no user with the e-mail nobody@example\.com/);
    t.equal(unknownUser.stdout, '');

    t.equal(unknownPlan.code, 1);
    t.match(unknownPlan.stderr, /unknown plan "gold": choose one of free, pro, enterprise/);

    for (const [label, result] of Object.entries({ noArgs, missingPlan, tooMany, unknownCommand })) {
      t.equal(result.code, 2, `${label}: usage error`);
      t.match(result.stderr, /usage: pnpm admin set-plan <email> <plan>/, `${label}: prints the usage`);
      t.equal(result.stdout, '', `${label}: nothing on stdout`);
    }
    t.match(unknownCommand.stderr, /unknown command "set-planz"/);

    t.equal(await planOf('bystander@example.com'), 'free', 'no refused command changed a plan');
  });

  t.test('a database it cannot reach is an error, not a success', async (t) => {
    const result = await runAdmin('postgres://postgres@127.0.0.1:1/nowhere', ['set-plan', 'owner@example.com', 'pro']);
    t.equal(result.code, 1);
    t.match(result.stderr, /admin failed: .*ECONNREFUSED/s);
    t.equal(result.stdout, '');
  });
});

t.test('pnpm admin grant-operator', async (t) => {
  const resources = await createIsolatedResources();
  const database = createDatabase(resources.databaseUrl, { max: 1 });
  t.teardown(async () => {
    await database.close();
    await resources.dispose();
  });
  await createUser(database.db, { email: 'ops@example.com', passwordHash: 'x' });
  await createUser(database.db, { email: 'customer@example.com', passwordHash: 'x' });
  await createUser(database.db, { email: 'squatter@example.com', passwordHash: 'x' });
  await database.sql`update users set email_verified = true where email in ('ops@example.com', 'customer@example.com')`;
  const roleOf = async (email: string) =>
    (await database.sql<{ role: string }[]>`select role from users where email = ${email}`)[0]?.role;
  const run = (...args: string[]) => runAdmin(resources.databaseUrl, args);

  t.test('gives the role, says what it did, and says so again without changing anything', async (t) => {
    const first = await run('grant-operator', ' OPS@example.com ');
    t.equal(first.code, 0, first.stderr);
    t.match(
      first.stdout.trim(),
      /^ops@example\.com now has the operator role: the operator console is at http.*\/operator$/,
    );
    t.equal(await roleOf('ops@example.com'), 'operator');
    t.equal(await roleOf('customer@example.com'), 'customer', 'nobody else changes');

    const again = await run('grant-operator', 'ops@example.com');
    t.equal(again.code, 0, again.stderr);
    t.equal(again.stdout.trim(), 'ops@example.com already has the operator role: nothing changed');
  });

  t.test('an account that never verified its e-mail does not get the role', async (t) => {
    const result = await run('grant-operator', 'squatter@example.com');
    t.equal(result.code, 1);
    t.match(result.stderr, /squatter@example\.com has not verified its e-mail address: nothing changed/);
    t.equal(result.stdout, '');
    t.equal(await roleOf('squatter@example.com'), 'customer');
  });

  t.test('an unknown e-mail or a bad call fails clearly and changes nothing', async (t) => {
    const [unknown, none, extra] = await Promise.all([
      run('grant-operator', 'nobody@example.com'),
      run('grant-operator'),
      run('grant-operator', 'customer@example.com', 'more'),
    ]);
    t.equal(unknown.code, 1);
    t.match(unknown.stderr, /no user with the e-mail nobody@example\.com/);
    t.equal(unknown.stdout, '');
    for (const [label, result] of Object.entries({ none, extra })) {
      t.equal(result.code, 2, `${label}: usage error`);
      t.match(result.stderr, /usage: .*grant-operator <email>/s, `${label}: prints the usage`);
    }
    t.equal(await roleOf('customer@example.com'), 'customer');
  });
});
