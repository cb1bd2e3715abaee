import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type ApiKey, type ApiKeyScope, apiKeyScopes, createApiKey, listApiKeys } from '@webpush/db';
import { AppError } from '@webpush/errors';
import { API_KEY_PREFIX, generateToken } from '@webpush/secrets';
import type { FastifyInstance } from 'fastify';
import { auditContext, sessionUser } from '#plugins/app/auth.js';
import { AppIdParams, sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { CreateKeyBody, CreateKeyResponse, KeyListResponse } from '#schemas/keys.js';

const publicKey = (key: ApiKey) => ({
  id: key.id,
  name: key.name,
  scope: key.scope,
  createdAt: key.createdAt.toISOString(),
  prefix: key.displayPrefix,
  lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
});

/** `wpk_` and the next 6 characters: enough to tell keys apart, 36 bits of a 256-bit secret. */
const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 6;
const isScope = (value: unknown): value is ApiKeyScope =>
  typeof value === 'string' && (apiKeyScopes as readonly string[]).includes(value);

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      config: { appRole: 'admin' },
      schema: {
        tags: ['api keys'],
        summary:
          'Create an API key; its secret is shown only in this response. An app has at most API_KEYS_PER_APP_MAX keys (default 50): one more is 400 INVALID_INPUT',
        security: sessionSecurity,
        params: AppIdParams,
        body: CreateKeyBody,
        response: {
          201: CreateKeyResponse,
          ...errorResponses(
            'MISSING_FIELDS',
            'INVALID_SCOPE',
            'INVALID_INPUT',
            ...authErrors,
            'FORBIDDEN',
            'NOT_FOUND',
            'CONFIG_ERROR',
          ),
        },
      },
    },
    async (request, reply) => {
      const user = sessionUser(request);
      const { appId } = request.params;
      const { scope, name } = request.body;
      if (!isScope(scope)) throw new AppError('INVALID_SCOPE');
      const secret = generateToken(API_KEY_PREFIX);
      const key = await createApiKey(
        app.db,
        request.ownedApp.userId,
        appId,
        {
          name: name?.trim() ?? '',
          scope,
          keyHash: app.secrets.hash(secret),
          displayPrefix: secret.slice(0, DISPLAY_PREFIX_LENGTH),
        },
        app.config.apiKeysPerAppMax,
        auditContext(request),
      );
      if (key === 'limit') throw new AppError('INVALID_INPUT', { detail: 'TOO_MANY_API_KEYS' });
      if (!key) throw new AppError('NOT_FOUND'); // deleted between the two statements
      request.log.info({ userId: user.id, appId, keyId: key.id, scope }, 'api key created');
      return reply.code(201).send({ key: publicKey(key), secret });
    },
  );

  app.get(
    '/',
    {
      config: { appRole: 'viewer' },
      schema: {
        tags: ['api keys'],
        summary: "List an app's API keys (never their secrets)",
        security: sessionSecurity,
        params: AppIdParams,
        response: { 200: KeyListResponse, ...errorResponses(...authErrors, 'NOT_FOUND') },
      },
    },
    async (request) => {
      const { appId } = request.params;
      return { keys: (await listApiKeys(app.db, request.ownedApp.userId, appId)).map(publicKey) };
    },
  );
}
