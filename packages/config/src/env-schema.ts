import { type Static, Type } from 'typebox';

/**
 * Every environment variable the service reads, in one schema. docs/configuration.md and
 * `.env.example` list the same names; `loadConfig` is the only place that reads `process.env`.
 */
export const EnvSchema = Type.Object({
  NODE_ENV: Type.String({ default: 'development' }),
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000 }),
  HOST: Type.String({ default: '0.0.0.0' }),
  LOG_LEVEL: Type.String({ default: 'info' }),
  /** Request logging at `info`: one line per request (`line`) or none (`off`). */
  LOG_REQUESTS: Type.Union([Type.Literal('line'), Type.Literal('off')], { default: 'line' }),
  PUBLIC_URL: Type.String({ default: 'http://localhost:3000' }),
  DATABASE_URL: Type.String({ default: 'postgres://postgres@127.0.0.1:5432/webpush' }),
  REDIS_URL: Type.String({ default: 'redis://127.0.0.1:6379' }),
  /** Seed nodes of a Redis Cluster (`host:port,host:port`); when set, REDIS_URL is not used. */
  REDIS_CLUSTER_NODES: Type.Optional(Type.String()),
  REDIS_KEY_PREFIX: Type.String({ default: 'wp', pattern: '^[A-Za-z0-9_.:-]+$' }),
  /** Where the BullMQ queues live: Redis, or the PostgreSQL of DATABASE_URL (BullMQ's PostgreSQL backend). */
  QUEUE_BACKEND: Type.Union([Type.Literal('redis'), Type.Literal('postgres')], { default: 'redis' }),
  /**
   * Where the API keeps its counters, buffers and caches: Redis, or its own memory for exactly one API
   * process (`process`, set by the embedded mode of `pnpm dev` and `pnpm start`).
   */
  COORDINATION: Type.Union([Type.Literal('redis'), Type.Literal('process')], { default: 'redis' }),
  ENCRYPTION_KEY: Type.Optional(Type.String()),
  API_KEY_PEPPER: Type.Optional(Type.String()),
  GITHUB_CLIENT_ID: Type.Optional(Type.String()),
  GITHUB_CLIENT_SECRET: Type.Optional(Type.String()),
  GITHUB_AUTHORIZE_URL: Type.String({ default: 'https://github.com/login/oauth/authorize' }),
  GITHUB_TOKEN_URL: Type.String({ default: 'https://github.com/login/oauth/access_token' }),
  GITHUB_API_URL: Type.String({ default: 'https://api.github.com' }),
  /** RFC 8292 `sub` of every VAPID JWT; default: PUBLIC_URL when https, else `mailto:admin@<its host>`. */
  VAPID_SUBJECT: Type.Optional(Type.String({ pattern: '^(mailto:|https:)' })),
  PUSH_SERVICE_HOSTS: Type.String({
    default: 'fcm.googleapis.com,updates.push.services.mozilla.com,*.notify.windows.com,web.push.apple.com',
  }),
  /**
   * Outbound proxy for pushes and webhooks (`http://[user:pass@]host:port`): HTTPS_PROXY for https
   * push services and receivers, HTTP_PROXY for the others and as HTTPS_PROXY's fallback; NO_PROXY
   * lists hosts reached directly. Webhook receivers are still checked against the address rules.
   */
  HTTPS_PROXY: Type.Optional(Type.String({ pattern: '^https?://' })),
  HTTP_PROXY: Type.Optional(Type.String({ pattern: '^https?://' })),
  NO_PROXY: Type.Optional(Type.String()),
  /** The worker's health server address: loopback by default, so its /metrics is not on the network. */
  WORKER_HOST: Type.String({ default: '127.0.0.1' }),
  /** When set, /metrics and /admin/queues are served on this port of their own (OPS_HOST), not on PORT. */
  OPS_PORT: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
  OPS_HOST: Type.String({ default: '127.0.0.1' }),
  /** Fastify `trustProxy`: empty/false, true (any proxy: not recommended), a hop count, or addresses/CIDRs. */
  TRUST_PROXY: Type.String({ default: '' }),
  RATE_LIMIT_WINDOW_SECONDS: Type.Integer({ minimum: 1, default: 60 }),
  RATE_LIMIT_API_KEY_MAX: Type.Integer({ minimum: 1, default: 20 }),
  RATE_LIMIT_LOGIN_MAX: Type.Integer({ minimum: 1, default: 10 }),
  RATE_LIMIT_REGISTER_MAX: Type.Integer({ minimum: 1, default: 5 }),
  /** Failed sign-ins one account (e-mail) takes per RATE_LIMIT_LOGIN_ACCOUNT_WINDOW_SECONDS, from every IP together. */
  RATE_LIMIT_LOGIN_ACCOUNT_MAX: Type.Integer({ minimum: 1, default: 10 }),
  RATE_LIMIT_LOGIN_ACCOUNT_WINDOW_SECONDS: Type.Integer({ minimum: 1, default: 900 }),
  /** IPv6 clients are counted per network of this prefix length (a /64 is one customer line). */
  RATE_LIMIT_IPV6_PREFIX: Type.Integer({ minimum: 1, maximum: 128, default: 64 }),
  /** Verification or reset e-mails one address receives per RATE_LIMIT_MAIL_PER_ADDRESS_WINDOW_SECONDS. */
  RATE_LIMIT_MAIL_PER_ADDRESS_MAX: Type.Integer({ minimum: 1, default: 5 }),
  RATE_LIMIT_MAIL_PER_ADDRESS_WINDOW_SECONDS: Type.Integer({ minimum: 1, default: 3600 }),
  /** API keys one app may have at once. */
  API_KEYS_PER_APP_MAX: Type.Integer({ minimum: 1, default: 50 }),
  /** "Send again" of webhook deliveries, per app per RATE_LIMIT_WINDOW_SECONDS. */
  WEBHOOK_RESEND_MAX: Type.Integer({ minimum: 1, default: 10 }),
  /** Writes (POST/PUT/PATCH/DELETE) one signed-in user may make per window. */
  RATE_LIMIT_SESSION_WRITE_MAX: Type.Integer({ minimum: 1, default: 300 }),
  /**
   * New subscriptions per app per window, across every API instance (Redis), on top of the per-IP
   * limit. 0 (the default) turns the cap off: an app gains subscribers as fast as visitors arrive.
   */
  RATE_LIMIT_SUBSCRIBE_PER_APP_MAX: Type.Integer({ minimum: 0, default: 0 }),
  SESSION_TTL_DAYS: Type.Integer({ minimum: 1, default: 30 }),
  BODY_LIMIT_BYTES: Type.Integer({ minimum: 1024, default: 65_536 }),
  // Delivery pipeline (the worker).
  WORKER_FAN_OUT_CONCURRENCY: Type.Integer({ minimum: 1, default: 2 }),
  WORKER_DELIVERY_CONCURRENCY: Type.Integer({ minimum: 1, default: 4 }),
  PUSH_CONCURRENCY: Type.Integer({ minimum: 1, default: 50 }),
  /**
   * Threads of a worker process that encrypt pushes (RFC 8291), beside the event loop. Unset: one
   * fewer than the machine's cores, at most 4. 0: encrypt on the event loop.
   */
  PUSH_CRYPTO_THREADS: Type.Optional(Type.Integer({ minimum: 0, maximum: 64 })),
  PUSH_HTTP2: Type.Union([Type.Literal('true'), Type.Literal('false')], { default: 'false' }),
  DELIVERY_CHUNK_SIZE: Type.Integer({ minimum: 1, maximum: 5_000, default: 500 }),
  /**
   * Answers of a chunk recorded per progress write while it is sent (a rerun after a crash skips
   * them). Unset: half of PUSH_CONCURRENCY. Larger: fewer writes, more pushes resent after a crash.
   */
  DELIVERY_PROGRESS_BATCH: Type.Optional(Type.Integer({ minimum: 1 })),
  PUSH_MAX_ATTEMPTS: Type.Integer({ minimum: 1, default: 5 }),
  PUSH_RETRY_BASE_MS: Type.Integer({ minimum: 0, default: 2_000 }),
  PUSH_RETRY_MAX_MS: Type.Integer({ minimum: 0, default: 3_600_000 }),
  /** Permanent refusals in a row a subscription causes itself before it is retired (docs/sending.md); 0: never. */
  RETIRE_AFTER_REFUSALS: Type.Integer({ minimum: 0, maximum: 1000, default: 5 }),
  RECONCILE_INTERVAL_MS: Type.Integer({ minimum: 100, default: 2_000 }),
  RECONCILE_STALE_MS: Type.Integer({ minimum: 0, default: 5_000 }),
  /** How often each worker starts the scheduled sends that are due (they start within this + a pass). */
  SCHEDULER_INTERVAL_MS: Type.Integer({ minimum: 100, maximum: 4_000, default: 1_000 }),
  WORKER_LOCK_DURATION_MS: Type.Integer({ minimum: 1_000, default: 4_000 }),
  WORKER_STALLED_INTERVAL_MS: Type.Integer({ minimum: 500, default: 1_000 }),
  /** How long an API instance keeps an API key's principal without asking PostgreSQL (0: never keeps it). */
  API_KEY_CACHE_TTL_MS: Type.Integer({ minimum: 0, maximum: 60_000, default: 10_000 }),
  /** API keys one API instance keeps at most (the least recently used go first). */
  API_KEY_CACHE_SIZE: Type.Integer({ minimum: 1, default: 10_000 }),
  // Engagement events (POST /events): buffered in Redis, counted in batches by the API.
  EVENTS_FLUSH_INTERVAL_MS: Type.Integer({ minimum: 50, default: 1_000 }),
  EVENTS_FLUSH_BATCH: Type.Integer({ minimum: 1, maximum: 10_000, default: 5_000 }),
  // Mail (verification and password-reset links). Without SMTP_URL messages are logged, not sent.
  SMTP_URL: Type.Optional(Type.String({ pattern: '^smtps?://' })),
  MAIL_FROM: Type.Optional(Type.String({ minLength: 3 })),
  /** Where plan requests from the pricing page are e-mailed (the operator's mailbox); unset: shown in the console only. */
  /** What each plan costs, as the pricing page shows it (free text, e.g. `¥3,000 / month`); unset: "contact us". `0`: free of charge. */
  PLAN_PRICE_FREE: Type.String({ default: '0', maxLength: 100 }),
  PLAN_PRICE_PRO: Type.Optional(Type.String({ maxLength: 100 })),
  PLAN_PRICE_ENTERPRISE: Type.Optional(Type.String({ maxLength: 100 })),
  OPERATOR_EMAIL: Type.Optional(Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+$' })),
  /** How often each worker deletes expired sessions and expired or used account tokens. */
  CLEANUP_INTERVAL_MS: Type.Integer({ minimum: 1_000, default: 600_000 }),
  /** Days finished notifications are kept, with their events, chunks and progress (at least 32: this month's sends are summed from them). */
  RETENTION_DAYS: Type.Integer({ minimum: 32, default: 90 }),
  /** Days webhook events and their delivery attempts are kept. */
  WEBHOOK_RETENTION_DAYS: Type.Integer({ minimum: 1, default: 30 }),
  /** Days audit-log entries are kept: at least 365, whatever the other retentions (docs/security.md). */
  AUDIT_RETENTION_DAYS: Type.Integer({ minimum: 365, default: 365 }),
  /** Days an expired or retired subscription is kept (its endpoint, keys, uid and tags) before it is deleted. */
  EXPIRED_SUBSCRIPTION_RETENTION_DAYS: Type.Integer({ minimum: 1, default: 30 }),
  /** Rows one retention statement deletes at most. */
  RETENTION_BATCH: Type.Integer({ minimum: 1, maximum: 100_000, default: 5_000 }),
  /** How often each worker compares the per-owner subscriber counters with a real count and repairs drift. */
  SUBSCRIBER_COUNT_CHECK_INTERVAL_MS: Type.Integer({ minimum: 1_000, default: 600_000 }),
  // Webhooks: the API checks URLs at PUT, the worker delivers (docs/webhooks.md).
  /** Comma-separated host[:port] exempt from the public-address rule (and allowed over http://): local testing. */
  WEBHOOK_ALLOWED_HOSTS: Type.String({ default: '' }),
  WEBHOOK_CONNECT_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 5_000 }),
  /** Name servers (comma-separated ip or ip:port) for webhook hosts; empty: the system's. Queried by c-ares, never getaddrinfo. */
  WEBHOOK_DNS_SERVERS: Type.String({ default: '' }),
  /** A webhook host name's resolution, per name server: a server that never answers delays nothing else. */
  WEBHOOK_DNS_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 2_000 }),
  /** One attempt, from connecting to the last byte of the (capped) answer. */
  WEBHOOK_TIMEOUT_MS: Type.Integer({ minimum: 1, default: 10_000 }),
  /** Attempts per event; the waits double from WEBHOOK_BACKOFF_MS (12 × 60 s: retries span about 34 hours). */
  WEBHOOK_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 30, default: 12 }),
  WEBHOOK_BACKOFF_MS: Type.Integer({ minimum: 0, default: 60_000 }),
  /** Webhook deliveries one worker process runs at once. */
  WEBHOOK_CONCURRENCY: Type.Integer({ minimum: 1, default: 10 }),
  /** Webhook deliveries one app may have in flight in one worker process: a slow receiver holds only these. */
  WEBHOOK_APP_CONCURRENCY: Type.Integer({ minimum: 1, default: 2 }),
  /** Failed attempts in a row after which an endpoint's deliveries pause (circuit breaker). */
  WEBHOOK_BREAKER_FAILURES: Type.Integer({ minimum: 1, default: 5 }),
  /** First pause of a failing endpoint; it doubles on each failed probe, up to 64 times this. */
  WEBHOOK_BREAKER_PAUSE_MS: Type.Integer({ minimum: 0, default: 30_000 }),
  /**
   * A webhook whose attempts have all failed for this long (since the first failure of the streak)
   * is disabled: its events wait, pending, until the owner resumes it. Default 3 days.
   */
  WEBHOOK_DISABLE_AFTER_MS: Type.Integer({ minimum: 1_000, default: 259_200_000 }),
  /** How often each worker queues outbox events that have no job yet (new, or lost with Redis). */
  WEBHOOK_RELAY_INTERVAL_MS: Type.Integer({ minimum: 100, default: 1_000 }),
  /** A queued event is checked against Redis again after this long without an attempt. */
  WEBHOOK_RELAY_STALE_MS: Type.Integer({ minimum: 0, default: 60_000 }),
  // Development: the dashboard from source through Vite (hot reload) and /sdk/* re-read on every request.
  // `pnpm dev` sets it; never in production (Vite is a development dependency).
  DASHBOARD_DEV_SERVER: Type.Boolean({ default: false }),
  // Traces (docs/tracing.md): OpenTelemetry starts only when one of these is set; the SDK reads the
  // other standard OTEL_* variables (headers, protocol, sampler) itself.
  OTEL_EXPORTER_OTLP_ENDPOINT: Type.Optional(Type.String()),
  /** `otlp` (the default once tracing is on), `console`, or `none` (off). */
  OTEL_TRACES_EXPORTER: Type.Optional(Type.String()),
  /**
   * Refuse the 10,000 most common passwords at registration and reset. Off by default: the API promises
   * that any password of 8 to 128 characters registers (docs/configuration.md).
   */
  PASSWORD_REFUSE_COMMON: Type.Boolean({ default: false }),
  // Operations: Bull Board at /admin/queues (and basic auth on the API's /metrics) when both are set.
  OPS_USERNAME: Type.Optional(Type.String()),
  OPS_PASSWORD: Type.Optional(Type.String()),
});

export type Env = Static<typeof EnvSchema>;
