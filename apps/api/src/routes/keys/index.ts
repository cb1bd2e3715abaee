import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  type ApiKey,
  type ApiKeyScope,
  apiKeyScopes,
  createApiKey,
  deleteApiKey,
  findApp,
  listApiKeys,
} from '@webpush/db';
import { AppError } from '@webpush/errors';
import { API_KEY_PREFIX, generateToken } from '@webpush/secrets';
import type { FastifyInstance } from 'fastify';
import { sessionUser } from '../../plugins/app/auth.js';
import { AppIdParams, errorResponses } from '../../schemas/common.js';
import { CreateKeyBody, CreateKeyResponse, KeyListResponse, KeyParams } from '../../schemas/keys.js';

const publicKey = (key: ApiKey) => ({
  id: key.id,
  name: key.name,
  scope: key.scope,
  createdAt: key.createdAt.toISOString(),
});
const isScope = (value: unknown): value is ApiKeyScope =>
  typeof value === 'string' && (apiKeyScopes as readonly string[]).includes(value);

const sessionSecurity: Record<string, string[]>[] = [{ session: [] }, { sessionCookie: [] }];
const authErrors = ['UNAUTHORIZED', 'INVALID_SESSION'] as const;

/** API keys of one app: mounted at /apps/:appId/keys, session only. */
export default async function keyRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.addHook('onRequest', app.authenticate({ session: true }));

  app.post(
    '/',
    {
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
      if (!(await findApp(app.db, user.id, appId))) throw new AppError('NOT_FOUND');
      const secret = generateToken(API_KEY_PREFIX);
      const key = await createApiKey(
        app.db,
        user.id,
        appId,
        { name: name?.trim() ?? '', scope, keyHash: app.secrets.hash(secret) },
        app.config.apiKeysPerAppMax,
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
      schema: {
        tags: ['api keys'],
        summary: "List an app's API keys (never their secrets)",
        security: sessionSecurity,
        params: AppIdParams,
        response: { 200: KeyListResponse, ...errorResponses(...authErrors, 'NOT_FOUND') },
      },
    },
    async (request) => {
      const user = sessionUser(request);
      const { appId } = request.params;
      if (!(await findApp(app.db, user.id, appId))) throw new AppError('NOT_FOUND');
      return { keys: (await listApiKeys(app.db, user.id, appId)).map(publicKey) };
    },
  );

  app.delete(
    '/:keyId',
    {
      schema: {
        tags: ['api keys'],
        summary: 'Revoke an API key; it answers INVALID_API_KEY from then on',
        security: sessionSecurity,
        params: KeyParams,
        response: { 204: { type: 'null', description: 'Revoked' }, ...errorResponses(...authErrors, 'NOT_FOUND') },
      },
    },
    async (request, reply) => {
      const user = sessionUser(request);
      const { appId, keyId } = request.params;
      const deleted = await deleteApiKey(app.db, user.id, appId, keyId);
      if (!deleted) throw new AppError('NOT_FOUND');
      await app.apiKeyPrincipals.changed({ appId });
      request.log.info({ userId: user.id, appId, keyId }, 'api key revoked');
      return reply.code(204).send(null);
    },
  );
}
