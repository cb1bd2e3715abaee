import { randomUUID } from 'node:crypto';
import { type ApiKeyPrincipal, apiKeyUseDue, findApiKeyPrincipal, recordApiKeyUse } from '@webpush/db';
import { decodePrincipalChange, encodePrincipalChange, type PrincipalChange } from '@webpush/queue';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    apiKeyPrincipals: {
      /** The principal of the key with this keyed hash, from this instance's cache or PostgreSQL. */
      find(keyHash: string): Promise<ApiKeyPrincipal | null>;
      /**
       * Call after a change that alters or ends principals (a key revoked, an app changed or deleted,
       * an account's plan changed): drops them here at once and, through the coordination's channel
       * (Redis pub/sub, or PostgreSQL NOTIFY), on every other API instance before this resolves.
       */
      changed(change: PrincipalChange): Promise<void>;
      /** Entries held now (tests, metrics). */
      readonly size: number;
    };
  }
}

interface Entry {
  principal: ApiKeyPrincipal;
  expiresAt: number;
}

/** How long `changed` waits for its own message to come back through the channel. */
const ECHO_WAIT_MS = 1_000;
/** How often a listener that lost its connection checks whether it hears again. */
const PROBE_INTERVAL_MS = 250;

/**
 * Every API-key request needs its principal (key, app, owner's plan); asking PostgreSQL each time
 * costs a round trip and ~40 µs of HMAC plus row mapping on the hottest routes. Each API instance
 * keeps the principals it used recently (API_KEY_CACHE_SIZE, least recently used out first), keyed by
 * the keyed hash of the key, never the key itself, for at most API_KEY_CACHE_TTL_MS.
 *
 * A change is seen everywhere at once: the instance that makes it drops the entries and publishes
 * the change on a Redis channel every instance listens to, on one node (on a Redis Cluster, sharded
 * pub/sub on the master of the channel's slot). An instance keeps nothing while its listening
 * connection is down, and empties its cache when the connection drops, since it may have missed a
 * message; the TTL bounds what a lost message could leave behind.
 * A lookup that raced with a change is not cached (generation). Absent keys are never cached: a key
 * created a moment ago works at once.
 */
export default fp(
  async (app: FastifyInstance) => {
    const { ttlMs, maxEntries } = app.config.apiKeyCache;
    const entries = new Map<string, Entry>();
    let generation = 0;
    let listening = false;
    /** Publishers waiting for their own message, by nonce. */
    const echoes = new Map<string, () => void>();

    const drop = (change: PrincipalChange) => {
      generation++;
      const matches =
        'appId' in change
          ? (entry: Entry) => entry.principal.appId === change.appId
          : (entry: Entry) => entry.principal.userId === change.userId;
      for (const [hash, entry] of entries) if (matches(entry)) entries.delete(hash);
    };
    const forgetAll = () => {
      generation++;
      entries.clear();
    };

    const onMessage = (message: string) => {
      // The nonce lets the publisher see its own message arrive.
      const { change, nonce } = decodePrincipalChange(message);
      if (change) drop(change);
      else forgetAll();
      if (nonce !== undefined) echoes.get(nonce)?.();
    };
    const channel = app.coordination.principals;
    const publish = (message: string) => channel.publish(message);

    /** Resolves true once the message with `nonce` came back to this instance's listener, false after `ECHO_WAIT_MS`. */
    const echoOf = (nonce: string) => {
      let timer: NodeJS.Timeout | undefined;
      const echoed = new Promise<boolean>((resolve) => {
        echoes.set(nonce, () => resolve(true));
        timer = setTimeout(() => resolve(false), ECHO_WAIT_MS);
      });
      return {
        echoed,
        done: () => {
          clearTimeout(timer);
          echoes.delete(nonce);
        },
      };
    };

    let closing = false;
    /** The listener may have missed a message: nothing cached is used, or kept, until it hears again. */
    const loseListener = () => {
      if (listening)
        app.log.warn('api-key cache listener disconnected: keys are looked up in PostgreSQL until it is back');
      listening = false;
      forgetAll();
    };
    // The listener may have missed a message whenever it reports a loss (coordination/redis.ts says
    // when): after that this instance keeps nothing until a message of its own has come back.
    let epoch = 0;
    let subscribed = false;
    let probing = false;
    const probe = async () => {
      if (probing) return;
      probing = true;
      try {
        while (!listening && !closing) {
          const startedAt = epoch;
          const nonce = randomUUID();
          const echo = echoOf(nonce);
          try {
            await publish(encodePrincipalChange({ appId: '-' }, nonce));
            if ((await echo.echoed) && epoch === startedAt && !closing) {
              forgetAll();
              listening = true;
              app.log.info('api-key cache listener is back: cached keys are used again');
              break;
            }
          } catch {
            // Redis is away (a restart or a failover): try again below.
          } finally {
            echo.done();
          }
          await new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS).unref());
        }
      } finally {
        probing = false;
      }
    };
    const stopListening = () => {
      epoch++;
      loseListener();
      if (subscribed && !closing) void probe();
    };
    let listener: { close(): Promise<void> } | null = null;
    if (ttlMs > 0) {
      try {
        const startedAt = epoch;
        listener = await channel.listen({ onMessage, onLost: stopListening });
        subscribed = true;
        // Answered on the connection that now listens, after the subscription took effect.
        if (epoch === startedAt && !closing) listening = true;
        else void probe();
      } catch (error) {
        app.log.warn({ err: error }, 'api-key cache listener could not subscribe: keys are looked up every time');
      }
    }
    app.addHook('onClose', async () => {
      closing = true;
      listening = false;
      await listener?.close();
    });

    /** Keys whose use is being recorded now: one write at a time per key from this instance. */
    const recording = new Set<string>();
    /**
     * The keys list's "last used", at most once a minute per key, written beside the request, not
     * before its answer: a lost write costs nothing but a stale time, so the request does not wait
     * for its commit. A lookup is the only place that sees the stored time, so a key served from
     * the cache records its use at the next lookup, within API_KEY_CACHE_TTL_MS.
     */
    const recordUse = (principal: ApiKeyPrincipal) => {
      const { id, lastUsedAt } = principal.key;
      if (!apiKeyUseDue(lastUsedAt) || recording.has(id)) return;
      recording.add(id);
      recordApiKeyUse(app.db, id)
        .catch((error: unknown) => app.log.warn({ err: error, keyId: id }, 'the API key use could not be recorded'))
        .finally(() => recording.delete(id));
    };

    const find = async (keyHash: string): Promise<ApiKeyPrincipal | null> => {
      const now = Date.now();
      const cached = entries.get(keyHash);
      if (cached !== undefined) {
        if (cached.expiresAt > now && listening) {
          // Most recently used last: the first entry of the map is the one to evict.
          entries.delete(keyHash);
          entries.set(keyHash, cached);
          return cached.principal;
        }
        entries.delete(keyHash);
      }
      const startedAt = generation;
      const principal = await findApiKeyPrincipal(app.db, keyHash);
      if (principal !== null) recordUse(principal);
      if (principal !== null && listening && generation === startedAt) {
        entries.set(keyHash, { principal, expiresAt: now + ttlMs });
        if (entries.size > maxEntries) {
          const oldest = entries.keys().next().value;
          if (oldest !== undefined) entries.delete(oldest);
        }
      }
      return principal;
    };

    /**
     * Redis (and PostgreSQL) writes a message to every listener in the same pass, so once this instance's
     * own listener has it, every other instance has it on its socket too: the change is answered
     * only then, and a request that follows the answer to any instance finds the entry gone.
     */
    const changed = async (change: PrincipalChange) => {
      drop(change);
      if (ttlMs === 0) return;
      const nonce = randomUUID();
      const echo = echoOf(nonce);
      try {
        await publish(encodePrincipalChange(change, nonce));
        if (listening) await echo.echoed;
      } catch (error) {
        // The other instances' listeners are then cut off from the channel too, and so keep nothing.
        app.log.warn({ err: error }, 'api-key cache: the change could not be published');
      } finally {
        echo.done();
      }
    };

    app.decorate('apiKeyPrincipals', {
      find,
      changed,
      get size() {
        return entries.size;
      },
    });
  },
  { name: 'api-key-principals', dependencies: ['config', 'db', 'coordination'] },
);
