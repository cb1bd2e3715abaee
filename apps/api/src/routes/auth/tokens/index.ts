import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { createPersonalAccessToken, listPersonalAccessTokens } from '@webpush/db';
import { AppError } from '@webpush/errors';
import { ACCESS_TOKEN_PREFIX, generateToken } from '@webpush/secrets';
import type { FastifyInstance } from 'fastify';
import { auditContext, sessionUser } from '#plugins/app/auth.js';
import { sessionAuthErrors as authErrors, errorResponses, sessionSecurity } from '#schemas/common.js';
import { AccessTokenListResponse, CreateAccessTokenBody, CreateAccessTokenResponse } from '#schemas/tokens.js';
import { publicAccessToken } from './public-token.js';

/** Tokens one account may hold: enough for every pipeline, few enough to review. */
const MAX_TOKENS_PER_USER = 50;

export default async function routes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.post(
    '/',
    {
      schema: {
        tags: ['auth'],
        summary: `Create a personal access token (\`wpt_…\`), which acts as you on /apps/**; its secret is shown only in this response. At most ${MAX_TOKENS_PER_USER} per account: one more is 400 INVALID_INPUT`,
        security: sessionSecurity,
        body: CreateAccessTokenBody,
        response: {
          201: CreateAccessTokenResponse,
          ...errorResponses('MISSING_FIELDS', 'INVALID_INPUT', ...authErrors, 'CONFIG_ERROR'),
        },
      },
    },
    async (request, reply) => {
      const name = request.body.name.trim();
      if (name === '') throw new AppError('MISSING_FIELDS');
      const secret = generateToken(ACCESS_TOKEN_PREFIX);
      const user = sessionUser(request);
      const token = await createPersonalAccessToken(
        app.db,
        user.id,
        { name, tokenHash: app.secrets.hash(secret) },
        MAX_TOKENS_PER_USER,
        auditContext(request),
      );
      if (token === 'limit') throw new AppError('INVALID_INPUT', { detail: 'TOO_MANY_ACCESS_TOKENS' });
      request.log.info({ userId: user.id, tokenId: token.id }, 'personal access token created');
      return reply.code(201).send({ token: publicAccessToken(token), secret });
    },
  );

  app.get(
    '/',
    {
      schema: {
        tags: ['auth'],
        summary: 'Your personal access tokens (never their secrets), oldest first',
        security: sessionSecurity,
        response: { 200: AccessTokenListResponse, ...errorResponses(...authErrors) },
      },
    },
    async (request) => ({
      tokens: (await listPersonalAccessTokens(app.db, sessionUser(request).id)).map(publicAccessToken),
    }),
  );
}
