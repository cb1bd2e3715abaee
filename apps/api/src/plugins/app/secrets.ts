import { AppError } from '@webpush/errors';
import { keyedHash, openSecret, sealSecret } from '@webpush/secrets';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    secrets: {
      /** HMAC of a bearer secret under API_KEY_PEPPER; 503 CONFIG_ERROR when the pepper is missing. */
      hash(secret: string): string;
      /**
       * Seals a secret under ENCRYPTION_KEY, bound to `context` (e.g. `vapidKeyContext(appId)`): it
       * opens only with the same context. 503 CONFIG_ERROR when the key is missing.
       */
      seal(plaintext: string, context: string): string;
      open(sealed: string, context: string): string;
    };
  }
}

/** Missing secrets do not stop the process (docs/configuration.md); the requests that need them get CONFIG_ERROR. */
export default fp(
  async (app: FastifyInstance) => {
    const { apiKeyPepper, encryptionKey, problems } = app.config;
    for (const problem of problems) app.log.error(`CONFIGURATION PROBLEM: ${problem}`);
    for (const note of app.config.notes) app.log.info(`note: ${note}`);

    const needPepper = (): Buffer => {
      if (!apiKeyPepper) throw new AppError('CONFIG_ERROR');
      return apiKeyPepper;
    };
    const needKey = (): Buffer => {
      if (!encryptionKey) throw new AppError('CONFIG_ERROR');
      return encryptionKey;
    };
    app.decorate('secrets', {
      hash: (secret: string) => keyedHash(needPepper(), secret),
      seal: (plaintext: string, context: string) => sealSecret(needKey(), plaintext, context),
      open: (sealed: string, context: string) => {
        const key = needKey();
        try {
          return openSecret(key, sealed, context);
        } catch (error) {
          // Another ENCRYPTION_KEY than the one that sealed it, or a ciphertext moved from another row.
          app.log.error({ err: error }, 'a sealed secret does not open under ENCRYPTION_KEY');
          throw new AppError('CONFIG_ERROR', { cause: error });
        }
      },
    });
  },
  { name: 'secrets', dependencies: ['config'] },
);
