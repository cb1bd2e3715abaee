import type { Redis } from 'ioredis';
import type { CounterBatch, CounterIncrement, WindowCount } from './counter-batch.js';

/**
 * Every increment of the request counters made in one turn of the event loop, sent as one script.
 *
 * Why not the library's store: @fastify/rate-limit's Redis store sends one `EVALSHA` per request.
 * On the browser routes that is the request's only Redis work, and its cost (the command, a write
 * and a read on each side, the script's set-up in Redis) was a fifth of a `POST /events`. Under
 * load the event loop reads many requests in one turn; their increments go out together here, in
 * one `EVALSHA` whose loop does exactly what the library's script does for each key (INCR, PEXPIRE
 * on the first request of a window, else PTTL), so the counters, their keys and the headers
 * derived from them are the library's. With one request in flight a batch holds one increment, and
 * it waits for nothing but the end of the current turn (`setImmediate`).
 *
 * A single Redis only: on a Redis Cluster the counters of different clients live in different
 * slots, so the callers keep the one-script-per-request path there.
 */
const COUNT_ALL = `local out = {}
for i = 2, #KEYS do
  local a = (i - 2) * 3
  local window = tonumber(ARGV[a + 1])
  local current = redis.call('INCR', KEYS[i])
  local ttl = window
  if current == 1 then redis.call('PEXPIRE', KEYS[i], window) else ttl = redis.call('PTTL', KEYS[i]) end
  local entry = ARGV[a + 3]
  if entry ~= '' and current <= tonumber(ARGV[a + 2]) then redis.call('RPUSH', KEYS[1], entry) end
  out[#out + 1] = current
  out[#out + 1] = ttl
end
return out`;

/** Increments in one script at most: a bound on the script's run time in Redis (~2 µs each). */
const MAX_BATCH = 256;

interface Pending extends CounterIncrement {
  resolve(count: WindowCount): void;
  reject(error: unknown): void;
}

interface BatchingRedis {
  countAll(numberOfKeys: number, ...keysAndArgs: (string | number)[]): Promise<number[]>;
}

/** `listKey`: where the increments' entries are pushed (one list for every batch of this process). */
export function createCounterBatch(redis: Redis, listKey: string): CounterBatch {
  redis.defineCommand('countAll', { lua: COUNT_ALL });
  const batching = redis as unknown as BatchingRedis;
  let pending: Pending[] = [];

  const send = (batch: Pending[]) => {
    const keys: string[] = [listKey];
    const args: (string | number)[] = [];
    for (const item of batch) {
      keys.push(item.key);
      args.push(item.windowMs, item.max, item.entry ?? '');
    }
    batching.countAll(keys.length, ...keys, ...args).then(
      (reply) => {
        for (let index = 0; index < batch.length; index++) {
          batch[index]?.resolve({ current: Number(reply[index * 2]), ttl: Number(reply[index * 2 + 1]) });
        }
      },
      (error: unknown) => {
        for (const item of batch) item.reject(error);
      },
    );
  };

  const flush = () => {
    const all = pending;
    pending = [];
    for (let start = 0; start < all.length; start += MAX_BATCH) send(all.slice(start, start + MAX_BATCH));
  };

  return {
    increment(increment) {
      return new Promise<WindowCount>((resolve, reject) => {
        if (pending.length === 0) setImmediate(flush);
        pending.push({ ...increment, resolve, reject });
      });
    },
  };
}
