import { availableParallelism } from 'node:os';
import type { Env } from './env-schema.js';
import { ConfigValidationError } from './errors.js';
import { type PushHostRule, parsePushHosts } from './push-hosts.js';
import { isLocalUrl, vapidSubjectProblem } from './vapid-subject.js';

/** One `host:port` seed of a Redis Cluster. */
export interface RedisNode {
  readonly host: string;
  readonly port: number;
}

export interface Config {
  readonly env: string;
  readonly port: number;
  readonly host: string;
  /** Listening address of the worker's health server (`/healthz`, `/readyz`, `/metrics`). */
  readonly workerHost: string;
  /** The ops surfaces' own listener (OPS_HOST, OPS_PORT); null: they share the API's port. */
  readonly opsListener: { readonly host: string; readonly port: number } | null;
  readonly logLevel: string;
  /** One log line per request at `info`, or none. */
  readonly logRequests: 'line' | 'off';
  readonly publicUrl: string;
  readonly secureCookies: boolean;
  readonly databaseUrl: string;
  readonly redisUrl: string;
  /**
   * Seed nodes of a Redis Cluster (REDIS_CLUSTER_NODES), or null for the single Redis at `redisUrl`.
   * When set, every Redis use of the API and the worker goes to the cluster and `redisUrl` is unused.
   */
  readonly redisClusterNodes: readonly RedisNode[] | null;
  /** Prefix of every Redis key the service writes; wrapped in `{}` where Redis Cluster needs a hash tag. */
  readonly redisKeyPrefix: string;
  /** Where the queues live (QUEUE_BACKEND): Redis, or the PostgreSQL of `databaseUrl`. */
  readonly queueBackend: 'redis' | 'postgres';
  /**
   * Where the API keeps rate-limit counters, the engagement buffer, set-once keys and hears of
   * principal changes (COORDINATION): Redis, shared by every API instance, or this process's memory
   * (with PostgreSQL LISTEN/NOTIFY for principal changes), for exactly one API process.
   */
  readonly coordination: 'redis' | 'process';
  /** 32-byte AES-256-GCM key for VAPID private keys, or null when missing/invalid (→ CONFIG_ERROR). */
  readonly encryptionKey: Buffer | null;
  /** HMAC pepper for API keys and session tokens, or null when missing (→ CONFIG_ERROR). */
  readonly apiKeyPepper: Buffer | null;
  readonly github: {
    readonly clientId: string | null;
    readonly clientSecret: string | null;
    readonly authorizeUrl: string;
    readonly tokenUrl: string;
    readonly apiUrl: string;
  };
  readonly pushServiceHosts: readonly PushHostRule[];
  /** The contact push services see in VAPID JWTs (`sub`, RFC 8292 §2.1): `mailto:` or `https:`. */
  readonly vapidSubject: string;
  /** Proxy for pushes and webhooks (HTTPS_PROXY, HTTP_PROXY, NO_PROXY); null: both are reached directly. */
  readonly outboundProxy: OutboundProxy | null;
  /** Refuse the most common passwords (PASSWORD_REFUSE_COMMON; off by default). */
  readonly passwordRefuseCommon: boolean;
  /** Fastify's `trustProxy`: false, true, a hop count, or a comma-separated list of addresses/CIDRs. */
  readonly trustProxy: boolean | number | string;
  readonly rateLimit: {
    readonly windowSeconds: number;
    readonly apiKeyMax: number;
    readonly loginMax: number;
    readonly registerMax: number;
    /** Failed sign-ins per account (e-mail) per `loginAccountWindowSeconds`, whatever the IPs. */
    readonly loginAccountMax: number;
    readonly loginAccountWindowSeconds: number;
    /** IPv6 clients share a counter per network of this prefix length. */
    readonly ipv6Prefix: number;
    readonly mailPerAddressMax: number;
    readonly mailPerAddressWindowSeconds: number;
    readonly sessionWriteMax: number;
    /** "Send again" of webhook deliveries per app per window. */
    readonly webhookResendMax: number;
    /** New subscriptions one app may gain per window (all instances together). */
    /** 0: no per-app cap on new subscriptions (the default). */
    readonly subscribePerAppMax: number;
  };
  /** API keys one app may have at once. */
  readonly apiKeysPerAppMax: number;
  /** The API instance's cache of API-key principals: how long an entry lives (0: off) and how many at most. */
  readonly apiKeyCache: { readonly ttlMs: number; readonly maxEntries: number };
  readonly mail: {
    /** `smtp://…` / `smtps://…`; null: messages are written to the log instead (development). */
    readonly smtpUrl: string | null;
    readonly from: string;
    /** OPERATOR_EMAIL: who is told of plan requests; null: nobody is e-mailed (the console still lists them). */
    readonly operator: string | null;
  };
  /** PLAN_PRICE_<PLAN>: what the pricing page says each plan costs; null: not set ("contact us"). */
  readonly planPrices: {
    readonly free: string | null;
    readonly pro: string | null;
    readonly enterprise: string | null;
  };
  /** Interval of the worker's removal of expired sessions and expired or used account tokens. */
  readonly cleanupIntervalMs: number;
  /** What the clean-up pass deletes, by age (see docs/operations.md "Retention"). */
  readonly retention: {
    readonly notificationDays: number;
    readonly webhookDays: number;
    readonly auditDays: number;
    readonly expiredSubscriptionDays: number;
    readonly batchSize: number;
  };
  /** Interval of the worker's check of the subscriber counters against a real count (it repairs drift). */
  readonly subscriberCountCheckIntervalMs: number;
  readonly sessionTtlDays: number;
  /** Development: the dashboard through Vite's dev server (hot reload), /sdk/* re-read on each request. */
  readonly dashboardDevServer: boolean;
  readonly bodyLimitBytes: number;
  readonly delivery: {
    /** Fan-out jobs one worker process runs at once. */
    readonly fanOutConcurrency: number;
    /** Delivery-chunk jobs one worker process runs at once. */
    readonly chunkConcurrency: number;
    /** Pushes in flight per chunk. */
    readonly pushConcurrency: number;
    /** HTTP/2 to the push services that offer it (one multiplexed connection per origin). */
    readonly http2: boolean;
    /** Threads that encrypt pushes beside the event loop (PUSH_CRYPTO_THREADS); 0: on the event loop. */
    readonly cryptoThreads: number;
    readonly chunkSize: number;
    /** Answers recorded per progress write, across the chunks a worker process is sending (DELIVERY_PROGRESS_BATCH). */
    readonly progressBatch: number;
    /** Sends of one push before a retryable answer (429, 5xx, network) counts as failed. */
    readonly maxAttempts: number;
    readonly retryBaseMs: number;
    readonly retryMaxMs: number;
    /**
     * Permanent refusals in a row that a subscription causes itself before it is retired like an
     * expired one (RETIRE_AFTER_REFUSALS); 0: never.
     */
    readonly retireAfterRefusals: number;
    readonly reconcileIntervalMs: number;
    /** An unfinished notification without progress for this long is checked against Redis. */
    readonly reconcileStaleMs: number;
    /** Interval of the worker's start of due scheduled sends (PostgreSQL polled, claims never overlap). */
    readonly schedulerIntervalMs: number;
    readonly lockDurationMs: number;
    readonly stalledIntervalMs: number;
  };
  readonly events: {
    /** How often the API moves buffered engagement events from Redis into PostgreSQL. */
    readonly flushIntervalMs: number;
    /** Events per flush statement. */
    readonly flushBatch: number;
  };
  /** Credentials of the operations surfaces (Bull Board); null when either is unset (disabled). */
  readonly ops: { readonly username: string; readonly password: string } | null;
  readonly webhooks: {
    /** Lower-case `host` or `host:port` exempt from the public-address rule, also over http (local testing). */
    readonly allowedHosts: readonly string[];
    readonly connectTimeoutMs: number;
    /** Name servers for webhook hosts (empty: the system's), and each query's limit. */
    readonly dnsServers: readonly string[];
    readonly dnsTimeoutMs: number;
    /** One attempt, from connecting to the last byte of the capped answer. */
    readonly timeoutMs: number;
    /** Attempts per event; retry n waits `backoffMs × 2^(n-1)`, so the defaults span about 34 hours. */
    readonly maxAttempts: number;
    readonly backoffMs: number;
    readonly concurrency: number;
    /** Attempts one app may have in flight in one worker process. */
    readonly perAppConcurrency: number;
    /** Failed attempts in a row that pause an endpoint, and the first pause (doubling per failed probe). */
    readonly breakerFailures: number;
    readonly breakerPauseMs: number;
    /** A streak of failures this long disables the webhook until its owner resumes it. */
    readonly disableAfterMs: number;
    /** How often the worker turns outbox rows without a job into jobs. */
    readonly relayIntervalMs: number;
    /** A queued event is checked against Redis again after this long. */
    readonly relayStaleMs: number;
  };
  /** OpenTelemetry traces: on when OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_TRACES_EXPORTER (not `none`) is set. */
  readonly tracing: { readonly enabled: boolean };
  /** Problems found at boot: logged loudly by each process, never fatal (docs/configuration.md). */
  readonly problems: readonly string[];
  /** What is fine for development but must change before going live: one line each at boot. */
  readonly notes: readonly string[];
}

/**
 * Answers per progress write when DELIVERY_PROGRESS_BATCH is unset: half the pushes a worker
 * process has in flight (WORKER_DELIVERY_CONCURRENCY chunks × PUSH_CONCURRENCY), so 4 chunks of
 * 500 at 50 in flight each cost 20 writes between them. One write carries the answers of every
 * chunk the process is sending.
 */
/**
 * One encryption thread per core beyond the event loop's, at most 4: encryption is ~90 % of a
 * push's CPU, and the event loop, PostgreSQL and the TLS of the sockets need a core too.
 */
export const defaultCryptoThreads = (cores: number): number => Math.max(0, Math.min(4, cores - 1));

export const defaultProgressBatch = (chunkConcurrency: number, pushConcurrency: number): number =>
  chunkConcurrency * Math.max(1, Math.ceil(pushConcurrency / 2));

/**
 * Pushes that a SIGKILL of one worker process can leave sent but unrecorded, so that reruns send
 * them again. With L = chunks × PUSH_CONCURRENCY lanes and a batch of B answers: the L in flight,
 * the batch being written (< B + L: a lane that answers once the batch is full waits, without a
 * push in flight, for the write before it) and the one filling meanwhile (< B + L).
 */
export const unrecordedBound = ({
  chunkConcurrency,
  pushConcurrency,
  progressBatch,
}: Pick<Config['delivery'], 'chunkConcurrency' | 'pushConcurrency' | 'progressBatch'>): number => {
  const lanes = chunkConcurrency * pushConcurrency;
  return lanes + 2 * (progressBatch + lanes - 1);
};

export interface OutboundProxy {
  readonly httpsProxy: string | null;
  readonly httpProxy: string | null;
  /** Comma-separated hosts (`example.com`, `.example.com`, `host:port`, `*`) reached without the proxy. */
  readonly noProxy: string;
}

function decodeEncryptionKey(raw: string | undefined, problems: string[]): Buffer | null {
  if (raw === undefined) {
    problems.push('ENCRYPTION_KEY is not set: app creation and every push answer 503 CONFIG_ERROR');
    return null;
  }
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32) {
    problems.push('ENCRYPTION_KEY must be 32 bytes, base64-encoded: requests that need it answer 503 CONFIG_ERROR');
    return null;
  }
  return key;
}

/**
 * `true` trusts every proxy, so the client IP is the left-most X-Forwarded-For entry, which any
 * client can write: rate limits then count whatever IP a client claims. A hop count (the number of
 * proxies in front of the API) or the proxies' addresses/CIDRs take the address the last trusted
 * proxy saw instead.
 */
/**
 * REDIS_CLUSTER_NODES: comma-separated `host:port` (IPv6 in brackets, `[::1]:7000`); the port is
 * required, since cluster nodes rarely listen on 6379. Empty means no cluster.
 */
export function parseRedisClusterNodes(raw: string | undefined): RedisNode[] | null {
  if (raw === undefined || raw.trim() === '') return null;
  const nodes: RedisNode[] = [];
  for (const entry of raw.split(',')) {
    const value = entry.trim();
    if (value === '') continue;
    const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^\s:[\]]+)):(\d{1,5})$/.exec(value);
    const port = Number(match?.[3]);
    if (!match || port < 1 || port > 65535) {
      throw new ConfigValidationError(
        `invalid configuration: REDIS_CLUSTER_NODES entry "${value}" is not host:port (an IPv6 address in brackets)`,
      );
    }
    nodes.push({ host: (match[1] ?? match[2]) as string, port });
  }
  return nodes.length > 0 ? nodes : null;
}

function parseTrustProxy(raw: string): boolean | number | string {
  const value = raw.trim();
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value); // hop count, as Fastify (proxy-addr) takes a number
  return value; // a comma-separated list of addresses/CIDRs, as Fastify accepts it
}

/** Push services want a way to reach the sender; the public site is one, its admin mailbox another. */
function defaultVapidSubject(publicUrl: string): string {
  if (publicUrl.startsWith('https://')) return publicUrl;
  const hostname = URL.canParse(publicUrl) ? new URL(publicUrl).hostname : '';
  return `mailto:admin@${hostname || 'localhost'}`;
}

function defaultMailFrom(publicUrl: string): string {
  const hostname = URL.canParse(publicUrl) ? new URL(publicUrl).hostname : '';
  return `no-reply@${hostname || 'localhost'}`;
}

/** Shortest secrets accepted in production: a pepper of 256 bits as base64, a password past guessing. */
export const MIN_API_KEY_PEPPER_LENGTH = 32;
export const MIN_OPS_PASSWORD_LENGTH = 16;

/** In production a short secret is a configuration error at start-up, not a weakness found later. */
function refuseShortSecrets(env: Env): void {
  if (env.NODE_ENV !== 'production') return;
  const short: string[] = [];
  if (env.API_KEY_PEPPER !== undefined && env.API_KEY_PEPPER.length < MIN_API_KEY_PEPPER_LENGTH) {
    short.push(`API_KEY_PEPPER must be at least ${MIN_API_KEY_PEPPER_LENGTH} characters`);
  }
  if (env.OPS_PASSWORD !== undefined && env.OPS_PASSWORD.length < MIN_OPS_PASSWORD_LENGTH) {
    short.push(`OPS_PASSWORD must be at least ${MIN_OPS_PASSWORD_LENGTH} characters`);
  }
  if (short.length > 0) throw new ConfigValidationError(`invalid configuration: ${short.join('; ')}`);
}

/**
 * The configuration from the environment's validated values (`parseEnv`, in parse-env.ts; `loadConfig`
 * does both). Throws only for values valid one by one but not together (and short secrets in
 * production). This module does not load TypeBox: the worker validates its environment on a
 * short-lived thread and builds its configuration here (startup.ts).
 */
export function configFromEnv(env: Env): Config {
  refuseShortSecrets(env);
  if (env.DASHBOARD_DEV_SERVER && env.NODE_ENV === 'production') {
    // Vite is a development dependency (absent from the production image) and serves sources.
    throw new ConfigValidationError(
      'invalid configuration: DASHBOARD_DEV_SERVER cannot be on when NODE_ENV=production',
    );
  }
  const redisClusterNodes = parseRedisClusterNodes(env.REDIS_CLUSTER_NODES);
  if (redisClusterNodes !== null && env.QUEUE_BACKEND === 'postgres') {
    throw new ConfigValidationError(
      'invalid configuration: REDIS_CLUSTER_NODES cannot be used with QUEUE_BACKEND=postgres: unset one of them (a cluster carries the queues itself)',
    );
  }
  if (redisClusterNodes !== null && env.COORDINATION === 'process') {
    throw new ConfigValidationError(
      'invalid configuration: REDIS_CLUSTER_NODES cannot be used with COORDINATION=process: unset one of them (in-process coordination is for one API process)',
    );
  }
  const problems: string[] = [];
  const notes: string[] = [];
  const encryptionKey = decodeEncryptionKey(env.ENCRYPTION_KEY, problems);
  if (env.API_KEY_PEPPER === undefined) {
    problems.push('API_KEY_PEPPER is not set: every request that needs a key or session answers 503 CONFIG_ERROR');
  }
  const publicUrl = env.PUBLIC_URL.replace(/\/+$/, '');
  if (env.SMTP_URL === undefined && env.NODE_ENV === 'production') {
    problems.push('SMTP_URL is not set: verification and password-reset e-mails are written to the log, not sent');
  }
  const vapidSubject = env.VAPID_SUBJECT ?? defaultVapidSubject(publicUrl);
  const subjectProblem = vapidSubjectProblem(vapidSubject);
  if (subjectProblem !== null) {
    const message =
      `VAPID_SUBJECT ${vapidSubject} ${subjectProblem}: Apple's push service refuses every push signed with it ` +
      '(403 BadJwtToken), so Safari and iPhone subscribers get nothing. Set VAPID_SUBJECT to a mailto: address or ' +
      'https: URL on a domain you own, e.g. VAPID_SUBJECT=mailto:push@your-company.com';
    // A production deployment refuses to start; a local trial (PUBLIC_URL on this machine) only warns;
    // development, where Apple's push service is rarely the one tried, is told in one line.
    if (env.NODE_ENV === 'production' && !isLocalUrl(publicUrl)) throw new ConfigValidationError(message);
    if (env.NODE_ENV === 'production') problems.push(message);
    else {
      notes.push(
        `VAPID_SUBJECT ${vapidSubject} ${subjectProblem}: fine for development, but Safari's push service refuses it; set VAPID_SUBJECT before going live`,
      );
    }
  }
  const webhookRetrySpanMs = env.WEBHOOK_BACKOFF_MS * (2 ** (env.WEBHOOK_MAX_ATTEMPTS - 1) - 1);
  if (env.NODE_ENV === 'production' && webhookRetrySpanMs < 24 * 3_600_000) {
    problems.push(
      `webhook retries span only ${Math.round(webhookRetrySpanMs / 60_000)} minutes (WEBHOOK_MAX_ATTEMPTS, WEBHOOK_BACKOFF_MS): receivers expect at least 24 hours`,
    );
  }
  return {
    env: env.NODE_ENV,
    port: env.PORT,
    host: env.HOST,
    workerHost: env.WORKER_HOST,
    opsListener: env.OPS_PORT === undefined ? null : { host: env.OPS_HOST, port: env.OPS_PORT },
    logLevel: env.LOG_LEVEL,
    logRequests: env.LOG_REQUESTS,
    publicUrl,
    secureCookies: publicUrl.startsWith('https://'),
    databaseUrl: env.DATABASE_URL,
    redisUrl: env.REDIS_URL,
    redisClusterNodes,
    redisKeyPrefix: env.REDIS_KEY_PREFIX,
    queueBackend: env.QUEUE_BACKEND,
    coordination: env.COORDINATION,
    encryptionKey,
    apiKeyPepper: env.API_KEY_PEPPER === undefined ? null : Buffer.from(env.API_KEY_PEPPER, 'utf8'),
    github: {
      clientId: env.GITHUB_CLIENT_ID ?? null,
      clientSecret: env.GITHUB_CLIENT_SECRET ?? null,
      authorizeUrl: env.GITHUB_AUTHORIZE_URL,
      tokenUrl: env.GITHUB_TOKEN_URL,
      apiUrl: env.GITHUB_API_URL.replace(/\/+$/, ''),
    },
    pushServiceHosts: parsePushHosts(env.PUSH_SERVICE_HOSTS),
    vapidSubject,
    outboundProxy:
      env.HTTPS_PROXY === undefined && env.HTTP_PROXY === undefined
        ? null
        : { httpsProxy: env.HTTPS_PROXY ?? null, httpProxy: env.HTTP_PROXY ?? null, noProxy: env.NO_PROXY ?? '' },
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    rateLimit: {
      windowSeconds: env.RATE_LIMIT_WINDOW_SECONDS,
      apiKeyMax: env.RATE_LIMIT_API_KEY_MAX,
      loginMax: env.RATE_LIMIT_LOGIN_MAX,
      registerMax: env.RATE_LIMIT_REGISTER_MAX,
      loginAccountMax: env.RATE_LIMIT_LOGIN_ACCOUNT_MAX,
      loginAccountWindowSeconds: env.RATE_LIMIT_LOGIN_ACCOUNT_WINDOW_SECONDS,
      ipv6Prefix: env.RATE_LIMIT_IPV6_PREFIX,
      mailPerAddressMax: env.RATE_LIMIT_MAIL_PER_ADDRESS_MAX,
      mailPerAddressWindowSeconds: env.RATE_LIMIT_MAIL_PER_ADDRESS_WINDOW_SECONDS,
      sessionWriteMax: env.RATE_LIMIT_SESSION_WRITE_MAX,
      webhookResendMax: env.WEBHOOK_RESEND_MAX,
      subscribePerAppMax: env.RATE_LIMIT_SUBSCRIBE_PER_APP_MAX,
    },
    apiKeysPerAppMax: env.API_KEYS_PER_APP_MAX,
    mail: {
      smtpUrl: env.SMTP_URL ?? null,
      from: env.MAIL_FROM ?? defaultMailFrom(publicUrl),
      operator: env.OPERATOR_EMAIL?.trim() || null,
    },
    planPrices: {
      free: env.PLAN_PRICE_FREE.trim() || null,
      pro: env.PLAN_PRICE_PRO?.trim() || null,
      enterprise: env.PLAN_PRICE_ENTERPRISE?.trim() || null,
    },
    cleanupIntervalMs: env.CLEANUP_INTERVAL_MS,
    retention: {
      notificationDays: env.RETENTION_DAYS,
      webhookDays: env.WEBHOOK_RETENTION_DAYS,
      auditDays: env.AUDIT_RETENTION_DAYS,
      expiredSubscriptionDays: env.EXPIRED_SUBSCRIPTION_RETENTION_DAYS,
      batchSize: env.RETENTION_BATCH,
    },
    subscriberCountCheckIntervalMs: env.SUBSCRIBER_COUNT_CHECK_INTERVAL_MS,
    sessionTtlDays: env.SESSION_TTL_DAYS,
    dashboardDevServer: env.DASHBOARD_DEV_SERVER,
    tracing: {
      enabled:
        env.OTEL_TRACES_EXPORTER !== undefined
          ? env.OTEL_TRACES_EXPORTER !== 'none'
          : env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined,
    },
    passwordRefuseCommon: env.PASSWORD_REFUSE_COMMON,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    delivery: {
      fanOutConcurrency: env.WORKER_FAN_OUT_CONCURRENCY,
      chunkConcurrency: env.WORKER_DELIVERY_CONCURRENCY,
      pushConcurrency: env.PUSH_CONCURRENCY,
      http2: env.PUSH_HTTP2 === 'true',
      cryptoThreads: env.PUSH_CRYPTO_THREADS ?? defaultCryptoThreads(availableParallelism()),
      chunkSize: env.DELIVERY_CHUNK_SIZE,
      progressBatch:
        env.DELIVERY_PROGRESS_BATCH ?? defaultProgressBatch(env.WORKER_DELIVERY_CONCURRENCY, env.PUSH_CONCURRENCY),
      maxAttempts: env.PUSH_MAX_ATTEMPTS,
      retryBaseMs: env.PUSH_RETRY_BASE_MS,
      retryMaxMs: env.PUSH_RETRY_MAX_MS,
      retireAfterRefusals: env.RETIRE_AFTER_REFUSALS,
      reconcileIntervalMs: env.RECONCILE_INTERVAL_MS,
      reconcileStaleMs: env.RECONCILE_STALE_MS,
      schedulerIntervalMs: env.SCHEDULER_INTERVAL_MS,
      lockDurationMs: env.WORKER_LOCK_DURATION_MS,
      stalledIntervalMs: env.WORKER_STALLED_INTERVAL_MS,
    },
    apiKeyCache: { ttlMs: env.API_KEY_CACHE_TTL_MS, maxEntries: env.API_KEY_CACHE_SIZE },
    events: { flushIntervalMs: env.EVENTS_FLUSH_INTERVAL_MS, flushBatch: env.EVENTS_FLUSH_BATCH },
    ops:
      env.OPS_USERNAME !== undefined && env.OPS_PASSWORD !== undefined
        ? { username: env.OPS_USERNAME, password: env.OPS_PASSWORD }
        : null,
    webhooks: {
      allowedHosts: env.WEBHOOK_ALLOWED_HOSTS.split(',')
        .map((host) => host.trim().toLowerCase())
        .filter((host) => host !== ''),
      connectTimeoutMs: env.WEBHOOK_CONNECT_TIMEOUT_MS,
      dnsServers: env.WEBHOOK_DNS_SERVERS.split(',')
        .map((server) => server.trim())
        .filter((server) => server !== ''),
      dnsTimeoutMs: env.WEBHOOK_DNS_TIMEOUT_MS,
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      maxAttempts: env.WEBHOOK_MAX_ATTEMPTS,
      backoffMs: env.WEBHOOK_BACKOFF_MS,
      concurrency: env.WEBHOOK_CONCURRENCY,
      perAppConcurrency: env.WEBHOOK_APP_CONCURRENCY,
      breakerFailures: env.WEBHOOK_BREAKER_FAILURES,
      breakerPauseMs: env.WEBHOOK_BREAKER_PAUSE_MS,
      disableAfterMs: env.WEBHOOK_DISABLE_AFTER_MS,
      relayIntervalMs: env.WEBHOOK_RELAY_INTERVAL_MS,
      relayStaleMs: env.WEBHOOK_RELAY_STALE_MS,
    },
    problems,
    notes,
  };
}
