import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runNode } from '@webpush/testing';
import pg from 'pg';
import postgres from 'postgres';
import t from 'tap';
import {
  DataDirectoryFromOtherMajorError,
  DataDirectoryInUseError,
  DataDirectoryNotWritableError,
  EmbeddedPostgresError,
  PortInUseError,
  startEmbeddedPostgres,
} from '../src/index.js';

const scratch = await mkdtemp(join(tmpdir(), 'wp-embedded-'));
// Under root the server runs as another user, who must be able to enter the scratch folder.
await chmod(scratch, 0o755);
t.teardown(() => rm(scratch, { recursive: true, force: true }));
const dataDir = join(scratch, 'data');

t.test(
  'a first start makes the data directory, answers postgres.js and pg, and a restart keeps the data',
  async (t) => {
    const first = await startEmbeddedPostgres({ dataDir });
    t.ok(first.created, 'initdb ran');
    t.match(first.url, /^postgres:\/\/postgres@127\.0\.0\.1:\d+\/webpush$/);
    t.not(first.port, 5432, 'a free port, never the usual one');
    const sql = postgres(first.url, { max: 1, onnotice: () => {} });
    await sql`create table kept (note text)`;
    await sql`insert into kept values ('written before the restart')`;
    await sql.end();
    const client = new pg.Client({ connectionString: first.url });
    await client.connect();
    const { rows } = await client.query<{ database: string }>('select current_database() as database');
    await client.end();
    t.equal(rows[0]?.database, 'webpush', 'pg reaches the application database from the same URL');
    await first.stop();

    const second = await startEmbeddedPostgres({ dataDir });
    t.teardown(() => second.stop());
    t.notOk(second.created, 'the existing data directory is used as it is');
    const again = postgres(second.url, { max: 1 });
    t.strictSame([...(await again`select note from kept`)], [{ note: 'written before the restart' }]);
    await again.end();

    await t.rejects(startEmbeddedPostgres({ dataDir }), {
      constructor: DataDirectoryInUseError,
      message: new RegExp(`already using ${dataDir}.*stop it first`),
    });
  },
);

t.test('a data directory of another PostgreSQL major is refused with what to do', async (t) => {
  const old = join(scratch, 'from-15');
  await mkdir(old);
  await writeFile(join(old, 'PG_VERSION'), '15\n');
  await t.rejects(startEmbeddedPostgres({ dataDir: old }), {
    constructor: DataDirectoryFromOtherMajorError,
    message: /holds PostgreSQL 15 data .* runs PostgreSQL 16: move the folder away/,
  });
});

t.test('a port already taken is refused with what to do', async (t) => {
  const taken = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => taken.once('listening', resolve));
  t.teardown(() => new Promise((resolve) => taken.close(resolve)));
  const address = taken.address();
  const port = address && typeof address === 'object' ? address.port : 0;
  await t.rejects(startEmbeddedPostgres({ dataDir: join(scratch, 'port'), port }), {
    constructor: PortInUseError,
    message: `port ${port} on 127.0.0.1 is already in use: stop what listens there, or choose another port`,
  });
});

t.test('a data directory the user cannot write is refused with what to do', async (t) => {
  const locked = join(scratch, 'locked');
  await mkdir(locked, { mode: 0o555 });
  await chmod(locked, 0o555);
  const dataDirInside = join(locked, 'data');
  if (process.getuid?.() !== 0) {
    await t.rejects(startEmbeddedPostgres({ dataDir: dataDirInside }), {
      constructor: DataDirectoryNotWritableError,
      message: /^cannot write to .*: give this user write access/,
    });
    return;
  }
  // Root may write anywhere; an ordinary user (nobody) shows what a developer would see.
  const nobody = Number(spawnSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).stdout);
  const fixture = fileURLToPath(new URL('fixtures/start-and-wait.ts', import.meta.url));
  const run = await runNode(['--conditions=webpush-source', '--import=tsx', fixture, dataDirInside], {
    uid: nobody,
    gid: nobody,
    env: { PATH: process.env.PATH },
  });
  t.equal(run.code, 1, run.stderr);
  t.match(JSON.parse(run.stdout), {
    error: 'DataDirectoryNotWritableError',
    message: new RegExp(`^cannot write to ${locked} \\(EACCES\\): give this user write access`),
  });
});

t.test(
  'under root, a data directory the server user cannot reach is refused with what to do',
  { skip: process.getuid?.() !== 0 && 'only root hands the server to another user' },
  async (t) => {
    const privateFolder = join(scratch, 'private');
    await mkdir(privateFolder, { mode: 0o700 });
    await chmod(privateFolder, 0o700);
    await t.rejects(startEmbeddedPostgres({ dataDir: join(privateFolder, 'data') }), {
      constructor: EmbeddedPostgresError,
      message: new RegExp(
        `cannot enter ${privateFolder}: run as an ordinary user, or \`chmod o\\+x ${privateFolder}\``,
      ),
    });
  },
);
