import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { waitFor } from './wait-for.js';

const run = promisify(execFile);

export interface RedisClusterNode {
  readonly host: string;
  readonly port: number;
}

export interface RedisClusterOptions {
  /** Masters (the 16,384 slots are split between them); default 3. */
  masters?: number;
  /** Replicas per master; default 1 (so 6 nodes by default). */
  replicasPerMaster?: number;
  /**
   * `cluster-node-timeout`: how long a master must be unreachable before its replica takes over.
   * Redis' default is 15 s; the tests default to 2 s so a failover is quick.
   */
  nodeTimeoutMs?: number;
  /** `redis-server` and `redis-cli` binaries (default: from PATH). */
  serverBin?: string;
  cliBin?: string;
}

export interface RedisCluster {
  /** Every node started, masters and replicas, in start order. */
  readonly nodes: readonly RedisClusterNode[];
  /** The seeds as REDIS_CLUSTER_NODES takes them: `127.0.0.1:p1,127.0.0.1:p2,…`. */
  readonly seeds: string;
  /** A plain connection to one node (closed with the cluster). */
  connect(node: RedisClusterNode): Redis;
  /** The node that is master of `key`'s slot now, and its replicas, from a live node's view. */
  ownerOf(key: string): Promise<{ master: RedisClusterNode; replicas: RedisClusterNode[] }>;
  /** Every live master now. */
  masters(): Promise<RedisClusterNode[]>;
  /**
   * Kills (SIGKILL) the master of `key`'s slot and waits until a replica has taken its slots over
   * and the cluster answers again: a master that dies. Resolves to the killed and the new master.
   */
  killMasterOf(key: string): Promise<{ killed: RedisClusterNode; promoted: RedisClusterNode }>;
  /** `CLUSTER FAILOVER` on a replica of `key`'s master (a planned switch, no write lost); waits for it. */
  failoverMasterOf(key: string): Promise<{ demoted: RedisClusterNode; promoted: RedisClusterNode }>;
  /** FLUSHALL on every live master: the cluster loses all its data at once. */
  flushAll(): Promise<void>;
  /** Resolves when every live node says `cluster_state:ok` and all slots are served. */
  waitUntilHealthy(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A TCP port that is free on 127.0.0.1, and whose cluster bus port (+10000) is free too. */
async function freeClusterPort(taken: Set<number>): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 25_000);
    if (taken.has(port) || taken.has(port + 10_000)) continue;
    if ((await free(port)) && (await free(port + 10_000))) {
      taken.add(port);
      return port;
    }
  }
  throw new Error('no free port pair for a Redis Cluster node');
}

interface NodeLine {
  id: string;
  port: number;
  flags: string[];
  masterId: string | null;
  slots: [number, number][];
}

/** Parses `CLUSTER NODES`. */
function parseNodes(text: string): NodeLine[] {
  return text
    .trim()
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      const [id = '', address = '', flags = '', master = '-', , , , , ...slots] = line.split(' ');
      const port = Number(/:(\d+)/.exec(address)?.[1]);
      return {
        id,
        port,
        flags: flags.split(','),
        masterId: master === '-' ? null : master,
        slots: slots
          .filter((slot) => !slot.startsWith('['))
          .map((slot) => {
            const [from, to] = slot.split('-').map(Number) as [number, number | undefined];
            return [from, to ?? from] as [number, number];
          }),
      };
    });
}

/**
 * For a test file's teardown, after `cluster.close()`: a client of BullMQ's or ioredis' can keep
 * retrying a stopped node's address after every close resolved (`[ioredis] Unhandled error event:
 * … ECONNREFUSED` after the file's last line). Seen about once in ten runs after a master was killed,
 * and once in CI after FLUSHALL on every master. That held the test process open until tap's
 * timeout and failed a file whose every assertion had passed. An unref'd timer ends the process in
 * that case only; it never fires when the process ends by itself.
 */
export function endProcessIfHeldOpen(afterMs = 10_000): void {
  setTimeout(() => process.exit(), afterMs).unref();
}

/**
 * A real Redis Cluster for a test: `masters × (1 + replicasPerMaster)` `redis-server` processes
 * with `--cluster-enabled yes` on free loopback ports, data in a temporary directory (no
 * persistence), joined by `redis-cli --cluster create`. Resolves once every node reports the
 * cluster healthy; `close()` kills the processes and removes the directory.
 */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const masters = options.masters ?? 3;
  const replicasPerMaster = options.replicasPerMaster ?? 1;
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 2_000;
  const serverBin = options.serverBin ?? 'redis-server';
  const cliBin = options.cliBin ?? 'redis-cli';
  const host = '127.0.0.1';
  const dir = await mkdtemp(join(tmpdir(), 'wp-redis-cluster-'));
  const processes = new Map<number, ChildProcess>();
  const clients: Redis[] = [];
  const nodes: RedisClusterNode[] = [];
  const taken = new Set<number>();
  const dead = new Set<number>();

  // Should the test process end without its teardown (a time-out), take the nodes with it.
  const killAll = () => {
    for (const child of processes.values())
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.once('exit', killAll);

  const close = async () => {
    process.off('exit', killAll);
    for (const client of clients) client.disconnect();
    await Promise.all(
      [...processes.values()].map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
    );
    await rm(dir, { recursive: true, force: true });
  };

  const connect = (node: RedisClusterNode) => {
    const client = new Redis({
      host: node.host,
      port: node.port,
      lazyConnect: true,
      maxRetriesPerRequest: 1,
      enableOfflineQueue: true,
      retryStrategy: () => null, // a test helper's probe: a node that is gone stays gone
    });
    client.on('error', () => {}); // probes of a killed node fail; the caller sees the rejection
    clients.push(client);
    return client;
  };
  /** One short-lived probe connection per question: a killed node must not wedge a cached one. */
  const ask = async <T>(node: RedisClusterNode, question: (client: Redis) => Promise<T>): Promise<T> => {
    const client = connect(node);
    try {
      return await question(client);
    } finally {
      client.disconnect();
      clients.splice(clients.indexOf(client), 1);
    }
  };
  const live = () => nodes.filter((node) => !dead.has(node.port));
  const clusterNodes = async () => {
    for (const node of live()) {
      try {
        return parseNodes(String(await ask(node, (client) => client.call('CLUSTER', 'NODES'))));
      } catch {
        // try the next node
      }
    }
    throw new Error('no cluster node answers');
  };
  const nodeAt = (port: number): RedisClusterNode => {
    const node = nodes.find((candidate) => candidate.port === port);
    if (!node) throw new Error(`no node on port ${port}`);
    return node;
  };

  try {
    for (let i = 0; i < masters * (1 + replicasPerMaster); i++) {
      const port = await freeClusterPort(taken);
      const child = spawn(
        serverBin,
        [
          '--port',
          String(port),
          '--bind',
          host,
          '--dir',
          dir,
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          `nodes-${port}.conf`,
          '--cluster-node-timeout',
          String(nodeTimeoutMs),
          '--save',
          '',
          '--appendonly',
          'no',
          '--logfile',
          join(dir, `redis-${port}.log`),
          '--daemonize',
          'no',
        ],
        { stdio: 'ignore' },
      );
      processes.set(port, child);
      child.once('exit', () => dead.add(port));
      nodes.push({ host, port });
    }
    await Promise.all(
      nodes.map((node) =>
        waitFor(async () => (await ask(node, (c) => c.ping())) === 'PONG', `redis-server on ${node.port} answers`, {
          timeoutMs: 15_000,
          intervalMs: 50,
          tolerateErrors: true,
        }),
      ),
    );
    await run(
      cliBin,
      [
        '--cluster',
        'create',
        ...nodes.map((node) => `${node.host}:${node.port}`),
        '--cluster-replicas',
        String(replicasPerMaster),
        '--cluster-yes',
      ],
      { timeout: 60_000 },
    );
  } catch (error) {
    await close();
    throw error;
  }

  const waitUntilHealthy = async (timeoutMs = 30_000) => {
    await waitFor(
      async () => {
        for (const node of live()) {
          const info = String(await ask(node, (client) => client.call('CLUSTER', 'INFO')));
          if (!/cluster_state:ok/.test(info) || !/cluster_slots_ok:16384/.test(info)) return false;
        }
        // Every live node agrees on who serves each slot, and no live master is marked failing.
        const views = await Promise.all(
          live().map(async (node) =>
            parseNodes(String(await ask(node, (client) => client.call('CLUSTER', 'NODES'))))
              .filter((line) => line.flags.includes('master') && line.slots.length > 0)
              .map((line) => `${line.port}:${JSON.stringify(line.slots)}`)
              .sort()
              .join(' '),
          ),
        );
        return views.every((view) => view === views[0]);
      },
      'the cluster is healthy',
      { timeoutMs: timeoutMs, intervalMs: 50, tolerateErrors: true },
    );
  };

  const ownerOf = async (key: string) => {
    const [any] = live();
    if (!any) throw new Error('no live node');
    const slot = Number(await ask(any, (client) => client.call('CLUSTER', 'KEYSLOT', key)));
    const lines = await clusterNodes();
    const master = lines.find(
      (line) =>
        line.flags.includes('master') &&
        !line.flags.includes('fail') &&
        line.slots.some(([from, to]) => slot >= from && slot <= to),
    );
    if (!master) throw new Error(`no master serves slot ${slot}`);
    const replicas = lines
      .filter((line) => line.masterId === master.id && !line.flags.includes('fail') && !dead.has(line.port))
      .map((line) => nodeAt(line.port));
    return { master: nodeAt(master.port), replicas };
  };

  const liveMasters = async () =>
    (await clusterNodes())
      .filter((line) => line.flags.includes('master') && !line.flags.includes('fail') && !dead.has(line.port))
      .map((line) => nodeAt(line.port));

  try {
    await waitUntilHealthy();
    // Replicas must have synced before a failover can promote one.
    await waitFor(
      async () => {
        for (const node of live()) {
          const info = String(await ask(node, (client) => client.info('replication')));
          if (/role:slave/.test(info) && !/master_link_status:up/.test(info)) return false;
        }
        return true;
      },
      'the replicas are in sync',
      { timeoutMs: 30_000, intervalMs: 50, tolerateErrors: true },
    );
  } catch (error) {
    await close();
    throw error;
  }

  return {
    nodes,
    seeds: nodes.map((node) => `${node.host}:${node.port}`).join(','),
    connect,
    ownerOf,
    masters: liveMasters,
    async killMasterOf(key) {
      const { master, replicas } = await ownerOf(key);
      if (replicas.length === 0) throw new Error(`master ${master.port} has no replica to take over`);
      const child = processes.get(master.port);
      await new Promise<void>((resolve) => {
        child?.once('exit', () => resolve());
        child?.kill('SIGKILL');
      });
      dead.add(master.port);
      const found: { promoted?: RedisClusterNode } = {};
      await waitFor(
        async () => {
          const owner = await ownerOf(key);
          if (owner.master.port === master.port) return false;
          found.promoted = owner.master;
          return true;
        },
        `a replica of ${master.port} takes over`,
        { timeoutMs: nodeTimeoutMs * 5 + 15_000, intervalMs: 100, tolerateErrors: true },
      );
      await waitUntilHealthy();
      if (!found.promoted) throw new Error('no replica took over');
      return { killed: master, promoted: found.promoted };
    },
    async failoverMasterOf(key) {
      const { master, replicas } = await ownerOf(key);
      const [replica] = replicas;
      if (!replica) throw new Error(`master ${master.port} has no replica to take over`);
      await ask(replica, (client) => client.call('CLUSTER', 'FAILOVER'));
      await waitFor(
        async () => (await ownerOf(key)).master.port === replica.port,
        `replica ${replica.port} takes over from ${master.port}`,
        { timeoutMs: 30_000, intervalMs: 100, tolerateErrors: true },
      );
      await waitUntilHealthy();
      return { demoted: master, promoted: replica };
    },
    async flushAll() {
      for (const master of await liveMasters()) await ask(master, (client) => client.flushall());
    },
    waitUntilHealthy,
    close,
  };
}
