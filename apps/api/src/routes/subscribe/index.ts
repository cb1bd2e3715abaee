import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  createSubscribeBatcher,
  deleteSubscription,
  findIdentitySecretSealed,
  findVapidKeyVersion,
  updateSubscriptionAudience,
} from '@webpush/db';
import { AppError, type ErrorDetail } from '@webpush/errors';
import { limitsFor } from '@webpush/plans';
import { isValidSubscriptionKeys } from '@webpush/push';
import { identitySecretContext } from '@webpush/secrets';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiKeyPrincipal } from '#plugins/app/auth.js';
import { errorResponses } from '#schemas/common.js';
import {
  flattenKeys,
  SubscribeBody,
  SubscribeResponse,
  UnsubscribeBody,
  UpdateSubscriptionBody,
} from '#schemas/subscriptions.js';
import { canonicalTimeZone } from '#src/time-zone.js';
import { isValidTagsSignature, isValidUidSignature } from '../../identity-secret.js';

interface SignedAudience {
  uid?: string;
  tags?: Record<string, string>;
  uidSignature?: string;
  tagsSignature?: string;
  signatureExpires?: number;
}

const keySecurity: Record<string, string[]>[] = [{ apiKey: [] }];
const authErrors = ['UNAUTHORIZED', 'INVALID_API_KEY', 'ORIGIN_NOT_ALLOWED', 'RATE_LIMITED'] as const;

/** Lifts `keys.p256dh` / `keys.auth` of the toJSON() shape to the flat shape before validation. */
async function flattenSubscriptionKeys(request: FastifyRequest) {
  flattenKeys(request.body);
}

/** The base64url form of a key given in base64 or base64url, with or without padding. */
const base64url = (key: string) => key.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const keyAuth = [app.limiters.apiKey, app.authenticate({ apiKey: 'subscribe_only' })];
  // New subscriptions that arrive together are stored by one statement (see createSubscribeBatcher);
  // with the per-app cap on, each goes alone (the cap asks before each insert).
  const batcher = createSubscribeBatcher(app.db);

  async function assertAudienceSigned(request: FastifyRequest, body: SignedAudience) {
    const principal = apiKeyPrincipal(request);
    if (principal.key.scope !== 'subscribe_only') return;
    const { uid, tags, uidSignature, tagsSignature, signatureExpires: expires } = body;
    const tagsNeedSignature = tags !== undefined && principal.requireSignedTags;
    if (uid === undefined && !tagsNeedSignature) return;
    const refuse = (reason: string, detail?: ErrorDetail) => {
      request.log.warn({ appId: principal.appId, reason }, 'subscribe with an audience signature refused');
      return new AppError('INVALID_UID_SIGNATURE', detail ? { detail } : {});
    };
    if (expires === undefined ? principal.signaturesExpire : expires * 1000 <= Date.now()) {
      throw refuse('signature expiry missing or past', 'SIGNATURE_EXPIRED');
    }
    if (uid !== undefined && uidSignature === undefined) throw refuse('uidSignature missing');
    if (tagsNeedSignature && tagsSignature === undefined)
      throw refuse('tagsSignature missing', 'TAGS_SIGNATURE_INVALID');
    const sealed = await findIdentitySecretSealed(app.db, principal.appId);
    if (sealed === null)
      throw refuse('no identity secret', tagsNeedSignature && uid === undefined ? 'TAGS_SIGNATURE_INVALID' : undefined);
    const secret = app.secrets.open(sealed, identitySecretContext(principal.appId));
    if (uid !== undefined && !isValidUidSignature(secret, uid, uidSignature ?? '', expires)) {
      throw refuse('uidSignature wrong');
    }
    if (tagsNeedSignature && !isValidTagsSignature(secret, tags, tagsSignature ?? '', expires)) {
      throw refuse('tagsSignature wrong', 'TAGS_SIGNATURE_INVALID');
    }
  }

  app.post(
    '/',
    {
      onRequest: keyAuth,
      preValidation: flattenSubscriptionKeys,
      schema: {
        tags: ['subscriptions'],
        summary:
          'Store a browser push subscription (201 new, 200 already stored); the key material must be a P-256 point and a 16-byte auth secret',
        security: keySecurity,
        body: SubscribeBody,
        response: {
          200: SubscribeResponse,
          201: SubscribeResponse,
          ...errorResponses(
            'MISSING_FIELDS',
            'INVALID_URL',
            'INVALID_ENDPOINT',
            'INVALID_INPUT',
            ...authErrors,
            'INVALID_UID_SIGNATURE',
            'SUBSCRIBER_LIMIT_EXCEEDED',
            'CONFIG_ERROR',
          ),
        },
      },
    },
    async (request, reply) => {
      const principal = apiKeyPrincipal(request);
      const { endpoint, p256dh, auth, uid, tags, language } = request.body;
      const timeZone = request.body.timeZone === undefined ? undefined : canonicalTimeZone(request.body.timeZone);
      // Keys no browser could hold would take a subscriber slot and fail every push.
      if (!isValidSubscriptionKeys({ p256dh, auth })) throw new AppError('INVALID_INPUT');
      const { applicationServerKey } = request.body;
      let vapidKeyVersion: number | undefined;
      if (applicationServerKey !== undefined) {
        const key = base64url(applicationServerKey);
        // The current key (what the SDK sends but just after a rotation) needs no query: the key's
        // lookup read it with the app.
        const version =
          key === principal.vapidPublicKey
            ? principal.vapidKeyVersion
            : await findVapidKeyVersion(app.db, principal.appId, key);
        if (version === null) throw new AppError('INVALID_INPUT');
        vapidKeyVersion = version;
      }
      await assertAudienceSigned(request, request.body);
      let retryAfterSeconds = 0;
      const result = await batcher.subscribe({
        ownerId: principal.userId,
        appId: principal.appId,
        keys: { endpoint, p256dh, auth },
        maxActive: limitsFor(principal.plan).activeSubscribers,
        audience: {
          ...(uid === undefined ? {} : { uid }),
          ...(tags === undefined ? {} : { tags }),
          ...(language === undefined ? {} : { language }),
          ...(timeZone === undefined ? {} : { timeZone }),
        },
        ...(vapidKeyVersion === undefined ? {} : { vapidKeyVersion }),
        ...(app.newSubscriptionCap.enabled
          ? {
              admitNew: async () => {
                const decision = await app.newSubscriptionCap.admit(principal.appId);
                retryAfterSeconds = decision.retryAfterSeconds;
                return decision.admitted;
              },
            }
          : {}),
      });
      if (result === 'limit') throw new AppError('SUBSCRIBER_LIMIT_EXCEEDED');
      // The app, and with it this key, was deleted while the request ran: as if the key were unknown.
      if (result === 'app_gone') throw new AppError('INVALID_API_KEY');
      if (result === 'rate_limited') {
        request.log.warn({ appId: principal.appId }, 'per-app cap on new subscriptions reached');
        throw new AppError('RATE_LIMITED', { headers: { 'Retry-After': String(retryAfterSeconds) } });
      }
      return reply.code(result.created ? 201 : 200).send({ subscriber: { id: result.id } });
    },
  );

  app.patch(
    '/',
    {
      onRequest: [app.limiters.apiKey, app.authenticate({ apiKey: 'notify' })],
      schema: {
        tags: ['subscriptions'],
        summary:
          'Set or remove the uid, language or time zone and/or replace the tags of a subscription (from your server)',
        description: '`null` removes the uid, language or time zone; absent fields stay as they are.',
        security: keySecurity,
        body: UpdateSubscriptionBody,
        response: {
          200: SubscribeResponse,
          ...errorResponses(
            'MISSING_FIELDS',
            'INVALID_URL',
            'INVALID_ENDPOINT',
            'INVALID_INPUT',
            'UNAUTHORIZED',
            'INVALID_API_KEY',
            'INSUFFICIENT_SCOPE',
            'RATE_LIMITED',
            'NOT_FOUND',
          ),
        },
      },
    },
    async (request) => {
      const { endpoint, uid, tags, language, timeZone } = request.body;
      const updated = await updateSubscriptionAudience(app.db, apiKeyPrincipal(request).appId, endpoint, {
        ...(uid === undefined ? {} : { uid }),
        ...(tags === undefined ? {} : { tags }),
        ...(language === undefined ? {} : { language }),
        ...(timeZone === undefined ? {} : { timeZone: timeZone === null ? null : canonicalTimeZone(timeZone) }),
      });
      if (!updated) throw new AppError('NOT_FOUND');
      return { subscriber: { id: updated.id } };
    },
  );

  app.delete(
    '/',
    {
      onRequest: keyAuth,
      schema: {
        tags: ['subscriptions'],
        summary: 'Remove a browser push subscription',
        security: keySecurity,
        body: UnsubscribeBody,
        response: {
          204: { type: 'null', description: 'Removed' },
          ...errorResponses(
            'MISSING_FIELDS',
            'INVALID_URL',
            'INVALID_ENDPOINT',
            'INVALID_INPUT',
            ...authErrors,
            'NOT_FOUND',
          ),
        },
      },
    },
    async (request, reply) => {
      const principal = apiKeyPrincipal(request);
      if (!(await deleteSubscription(app.db, principal.appId, request.body.endpoint))) throw new AppError('NOT_FOUND');
      return reply.code(204).send(null);
    },
  );
}
