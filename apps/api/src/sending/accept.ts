import {
  type AcceptedAnswer,
  acceptNotification,
  countTargetsByZone,
  findIdempotentResponse,
  findSegment,
  findSubscriptionsByEndpoints,
  isUuid,
  type NotificationPayload,
  type NotificationTarget,
  type PushFormat,
  storedAudience,
} from '@webpush/db';
import { AppError } from '@webpush/errors';
import { limitsFor } from '@webpush/plans';
import { deliveredContents, deliveredPayloadBytes, MAX_BROWSER_PAYLOAD_BYTES } from '@webpush/push';
import { enqueueFanOut } from '@webpush/queue';
import { inSpan } from '@webpush/tracing';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { apiKeyPrincipal } from '../plugins/app/auth.js';
import { toAppError } from '../plugins/app/error-handler.js';
import {
  DEFAULT_TTL_SECONDS,
  MAX_DATA_BYTES,
  MAX_PAYLOAD_BYTES,
  MAX_SCHEDULE_AHEAD_MS,
  type NotifyBatchBody,
  NotifyBatchResponse,
  type NotifyBody,
  NotifyResponse,
} from '../schemas/notifications.js';
import { checkSegment } from '../schemas/segments.js';
import { planLocalGroups } from './local-time.js';

/**
 * The one accept path of every sending route: `/notify` and `/notify/batch` (the app and owner come
 * from the API key) and `POST /apps/:appId/notifications` (from the session and the owned app).
 */
export interface Sender {
  appId: string;
  /** The app's owner: monthly usage is theirs, across their apps. */
  userId: string;
  /** The owner's plan: it decides the monthly limit. */
  plan: string;
  /** What the app's browsers receive (docs/sending.md): decides how big the delivered payload is. */
  pushFormat: PushFormat;
}

/** What any sending route can answer besides its authentication errors. */
export const sendErrors = [
  'MISSING_FIELDS',
  'INVALID_URL',
  'INVALID_ENDPOINT',
  'INVALID_INPUT',
  'PAYLOAD_TOO_LARGE',
  'MONTHLY_LIMIT_EXCEEDED',
  'CONFIG_ERROR',
] as const;

/** Where click links point: `${PUBLIC_URL}/c/` (docs/sending.md, "Declarative Web Push"). */
export const clickLinkBaseOf = (publicUrl: string) => `${publicUrl}/c/`;

type NewNotificationTiming = Parameters<typeof acceptNotification>[3];

/** Which route accepted a notification, for the metrics. */
export type SendRoute = 'notify' | 'batch' | 'session';

const richFieldNames = [
  'image',
  'actions',
  'requireInteraction',
  'silent',
  'renotify',
  'tag',
  'data',
  'appBadge',
  'translations',
  'variants',
  'sample',
  'winnerAfterMinutes',
] as const;

/** What is stored and sent: the present fields among title, body, url, icon, badge and the rich fields. */
export function payloadOf(body: NotifyBody | NotifyBatchBody): NotificationPayload {
  const payload: NotificationPayload = { title: body.title, body: body.body };
  if (body.url !== undefined) payload.url = body.url;
  if (body.icon !== undefined) payload.icon = body.icon;
  if (body.badge !== undefined) payload.badge = body.badge;
  for (const name of richFieldNames) {
    if (body[name] !== undefined) Object.assign(payload, { [name]: body[name] });
  }
  return payload;
}

const utf8Bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/**
 * The rules of docs/sending.md the schema cannot say (a duplicate
 * `action`, `renotify` without `tag`: INVALID_INPUT), then the sizes (PAYLOAD_TOO_LARGE): the
 * 3,072 bytes of title, body, url, icon and badge, `data` within 1,024 bytes, and the whole
 * payload the app's browsers receive within 3,993 bytes: the legacy JSON with its id, or the
 * declarative message with its click links (every id and token has a fixed length, so the
 * placeholders measure exactly what will be delivered).
 */
export function assertPayload(payload: NotificationPayload, pushFormat: PushFormat, linkBase: string): void {
  const actions = payload.actions ?? [];
  if (new Set(actions.map((action) => action.action)).size !== actions.length) throw new AppError('INVALID_INPUT');
  if (payload.renotify === true && payload.tag === undefined) throw new AppError('INVALID_INPUT');
  // Two keys that differ only in case would make the choice depend on their order.
  const languages = Object.keys(payload.translations ?? {}).map((key) => key.toLowerCase());
  if (new Set(languages).size !== languages.length) throw new AppError('INVALID_INPUT');
  assertAbTest(payload);
  // Every subscription receives one of these texts (the send's own, a translation's or a
  // variant's): each is held to the same byte rules.
  for (const content of deliveredContents(payload)) assertSizes(content, pushFormat, linkBase);
}

/**
 * The rules of an A/B test the schema cannot say (docs/engagement.md): `sample` and
 * `winnerAfterMinutes` go together, and only with variants; a variant's buttons are unique; and no
 * `translations` beside variants, since a translation replaces the very title, body and url a
 * variant tests, and an alternative has no text in those languages to fall back on.
 */
function assertAbTest(payload: NotificationPayload): void {
  const variants = payload.variants ?? [];
  if ((payload.sample === undefined) !== (payload.winnerAfterMinutes === undefined))
    throw new AppError('INVALID_INPUT');
  if (payload.sample !== undefined && variants.length === 0) throw new AppError('INVALID_INPUT');
  if (variants.length > 0 && payload.translations !== undefined) throw new AppError('INVALID_INPUT');
  for (const variant of variants) {
    const actions = variant.actions ?? [];
    if (new Set(actions.map((action) => action.action)).size !== actions.length) throw new AppError('INVALID_INPUT');
  }
}

/**
 * An A/B test is planned at once, its sample judged after `winnerAfterMinutes`; a send pushed to
 * each target at its own local time (`localTime`) reaches its targets over up to 24 hours, and a
 * throttled one over as long as its rate takes, so neither can give a sample judged on time, nor a
 * fair split between variants pushed hours apart: variants with either are INVALID_INPUT
 * (docs/engagement.md).
 */
export function assertAbTestTiming(body: object): void {
  const { variants, sample, localTime, throttle } = body as Record<string, unknown>;
  if ((variants !== undefined || sample !== undefined) && (localTime !== undefined || throttle !== undefined))
    throw new AppError('INVALID_INPUT');
}

function assertSizes(payload: NotificationPayload, pushFormat: PushFormat, linkBase: string): void {
  const { title, body, url, icon, badge } = payload;
  if (utf8Bytes({ title, body, url, icon, badge }) > MAX_PAYLOAD_BYTES) throw new AppError('PAYLOAD_TOO_LARGE');
  if (payload.data !== undefined && utf8Bytes(payload.data) > MAX_DATA_BYTES) throw new AppError('PAYLOAD_TOO_LARGE');
  if (deliveredPayloadBytes(payload, pushFormat, linkBase) > MAX_BROWSER_PAYLOAD_BYTES)
    throw new AppError('PAYLOAD_TOO_LARGE');
}

/**
 * `sendAt` of a send: null to send now. A time that is not RFC 3339, not in the future, or more
 * than 30 days ahead is INVALID_INPUT (the schema checks the format; this the range).
 */
export function scheduledTime(sendAt: string | undefined, now = Date.now()): Date | null {
  if (sendAt === undefined) return null;
  const at = Date.parse(sendAt);
  if (Number.isNaN(at) || at <= now || at > now + MAX_SCHEDULE_AHEAD_MS) throw new AppError('INVALID_INPUT');
  return new Date(at);
}

// Plain-object views of the schemas for `serializeInput`, made once so Fastify's compile cache holds.
const notifyAnswer: Record<string, unknown> = { ...NotifyResponse };
const batchAnswer: Record<string, unknown> = { ...NotifyBatchResponse };

/**
 * The first answer to an `Idempotency-Key`, byte for byte: serialized with the schema of the route
 * that gave it, so a key first used on another sending route replays that answer instead of failing
 * (or trimming it to) this route's response schema.
 */
const sendReplay = (reply: FastifyReply, response: Record<string, unknown>) =>
  reply
    .code(202)
    .header('idempotent-replayed', 'true')
    .type('application/json; charset=utf-8')
    .send(reply.serializeInput(response, 'unknownEndpoints' in response ? batchAnswer : notifyAnswer));

/** Counts refused sends by code, in the encapsulated scope of a sending routes plugin. */
export function countRefusedSends(app: FastifyInstance): void {
  app.addHook('onError', async (request, _reply, error) => {
    if (request.method !== 'POST') return;
    app.metrics.notificationsRefused.inc({ code: toAppError(error, request)?.code ?? 'INTERNAL_ERROR' });
  });
}

export function notificationAcceptor(app: FastifyInstance) {
  /** Queues the fan-out after the notification is committed; if Redis fails now, the reconciler re-queues it. */
  async function queueFanOut(notificationId: string, request: FastifyRequest) {
    try {
      await enqueueFanOut(app.queues.fanOut, notificationId);
    } catch (error) {
      request.log.error(
        { err: error, notificationId },
        'could not queue the fan-out; the worker reconciler will pick it up',
      );
    }
  }

  const idempotencyKeyOf = (request: FastifyRequest): string | null => {
    const key = request.headers['idempotency-key'];
    return typeof key === 'string' ? key : null;
  };

  /** Answers a request with an `Idempotency-Key` the app used before (within 24 h), or returns false. */
  async function replayed(request: FastifyRequest, reply: FastifyReply, sender: Sender): Promise<boolean> {
    const key = idempotencyKeyOf(request);
    if (key === null) return false;
    const response = await findIdempotentResponse(app.db, sender.appId, key);
    if (response === null) return false;
    await sendReplay(reply, response);
    return true;
  }

  /**
   * Runs a sending route's own checks (and lookups), replaying first like the contract says: an
   * `Idempotency-Key` answered before gets that answer whatever this request holds. The replay is
   * looked up here only when a check refuses the request; a request that passes them goes to the
   * accept statement, which replays by itself, so the hot path spends no round trip on it.
   */
  async function checkedOrReplayed<T>(
    request: FastifyRequest,
    reply: FastifyReply,
    sender: Sender,
    checks: () => T | Promise<T>,
  ): Promise<{ replayed: true } | { replayed: false; value: T }> {
    try {
      return { replayed: false, value: await checks() };
    } catch (error) {
      if (await replayed(request, reply, sender)) return { replayed: true };
      throw error;
    }
  }

  const clickLinkBase = clickLinkBaseOf(app.config.publicUrl);

  /** The VAPID keys are sealed under ENCRYPTION_KEY: without it nothing can be sent. */
  function requireEncryptionKey(): void {
    if (!app.config.encryptionKey) throw new AppError('CONFIG_ERROR');
  }

  /** Reserves the month's sends, stores the notification, queues its fan-out, answers 202. */
  async function accept<R extends Record<string, unknown> & AcceptedAnswer>(
    request: FastifyRequest,
    reply: FastifyReply,
    sender: Sender,
    route: SendRoute,
    body: NotifyBody | NotifyBatchBody,
    target: NotificationTarget,
    respond: (accepted: { id: string; targets: number }) => R,
    sendAt: Date | null = null,
    timing: Pick<NewNotificationTiming, 'localTime' | 'throttlePerMinute'> = {},
  ) {
    const result = await inSpan('notification.accept', { 'webpush.app_id': sender.appId }, () =>
      acceptNotification(
        app.db,
        sender.userId,
        sender.appId,
        {
          payload: payloadOf(body),
          ttl: body.ttl ?? DEFAULT_TTL_SECONDS,
          urgency: body.urgency ?? 'normal',
          topic: body.topic ?? null,
          target,
          idempotencyKey: idempotencyKeyOf(request),
          sendAt,
          ...timing,
        },
        limitsFor(sender.plan).sendsPerMonth,
        respond,
      ),
    );
    if (result.kind === 'limit') throw new AppError('MONTHLY_LIMIT_EXCEEDED');
    if (result.kind === 'replay') return sendReplay(reply, result.response);

    const { notification } = result;
    // Redis on the accept path: the rate limiter's one EVALSHA (onRequest; it must answer before any
    // database work, so it stays in front) and this job add, also one EVALSHA. The add is not
    // awaited: the 202 promises only that the notification is committed, which it is, and a job
    // that never reaches Redis is re-queued by the worker's reconciler either way. It starts once the
    // 202 is written (setImmediate runs after this poll phase, in which Fastify writes the answer):
    // started here, BullMQ's preparation and the write that wakes Redis would come before the
    // answer's write (docs/performance.md). The worker sees the job a few microseconds later.
    // queueFanOut never rejects.
    if (notification.status === 'queued') setImmediate(queueFanOut, notification.id, request);
    app.metrics.notificationsAccepted.inc({ route });
    app.metrics.sendsAccepted.inc(notification.targets);
    request.log.info(
      {
        notificationId: notification.id,
        appId: sender.appId,
        targets: notification.targets,
        route,
        status: notification.status,
      },
      'notification accepted',
    );
    return reply.code(202).send(result.response);
  }

  /**
   * `POST /notify` for `sender`'s app: to every active subscriber, to one endpoint (404 when the
   * app does not have it, 410 when it has expired), to `uids` or to `tags`; now or at `sendAt`.
   * Replays first, then the checks in the contract's order.
   */
  async function sendNotify(request: FastifyRequest, reply: FastifyReply, sender: Sender, body: NotifyBody) {
    const checked = await checkedOrReplayed(request, reply, sender, async () => {
      requireEncryptionKey();
      assertPayload(payloadOf(body), sender.pushFormat, clickLinkBase);
      assertAbTestTiming(body);
      const targeting = [body.endpoint, body.uids, body.tags, body.segment, body.segmentId].filter(
        (field) => field !== undefined,
      );
      if (targeting.length > 1) throw new AppError('INVALID_INPUT');
      if (body.localTime !== undefined && body.sendAt !== undefined) throw new AppError('INVALID_INPUT');
      const sendAt = scheduledTime(body.sendAt);

      let target: NotificationTarget = { kind: 'all' };
      if (body.uids !== undefined) target = { kind: 'uids', uids: body.uids };
      if (body.tags !== undefined) target = { kind: 'tags', tags: body.tags };
      if (body.segment !== undefined) target = { kind: 'segment', segment: checkSegment(body.segment) };
      if (body.segmentId !== undefined) {
        // A malformed id finds nothing, as another app's segment does: 404 either way.
        const saved = isUuid(body.segmentId) ? await findSegment(app.db, sender.appId, body.segmentId) : null;
        if (!saved) throw new AppError('NOT_FOUND');
        target = { kind: 'segment', segment: saved.segment };
      }
      if (body.endpoint !== undefined) {
        const [match] = await findSubscriptionsByEndpoints(app.db, sender.appId, [body.endpoint]);
        if (!match) throw new AppError('NOT_FOUND');
        if (match.status !== 'active') throw new AppError('SUBSCRIPTION_EXPIRED');
        target = { kind: 'endpoint', subscriptionIds: [match.id] };
      }
      return { sendAt, target };
    });
    if (checked.replayed) return reply;
    const { sendAt, target } = checked.value;
    // A `localTime` send is planned now: its audience counted per zone, one group per instant.
    const localTime = body.localTime === undefined ? null : await localTimePlan(body.localTime, sender.appId, target);
    const status = sendAt === null && localTime === null ? ('queued' as const) : ('scheduled' as const);
    return accept(
      request,
      reply,
      sender,
      route(request),
      body,
      target,
      ({ id, targets }) => ({ notification: { id, status, targets } }),
      sendAt,
      { localTime, throttlePerMinute: body.throttle?.perMinute ?? null },
    );
  }

  async function localTimePlan(time: string, appId: string, target: NotificationTarget) {
    const { appTimeZone, zones } = await countTargetsByZone(app.db, appId, storedAudience(target));
    return { time, groups: planLocalGroups(time, appTimeZone, zones) };
  }

  const route = (request: FastifyRequest): SendRoute => (request.principal?.kind === 'apiKey' ? 'notify' : 'session');

  return { checkedOrReplayed, requireEncryptionKey, accept, sendNotify, clickLinkBase };
}

/** The key's app, its owner and the owner's plan. */
export const keySender = (request: FastifyRequest): Sender => {
  const principal = apiKeyPrincipal(request);
  return { appId: principal.appId, userId: principal.userId, plan: principal.plan, pushFormat: principal.pushFormat };
};
