import { AppError } from '@webpush/errors';
import { keyedHash, openSecret, sealSecret } from '@webpush/secrets';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    secrets: {
      /** HMAC of a bearer secret under API_KEY_PEPPER; 503 CONFIG_ERROR when the pepper is missing. */
      hash(secret: string): string;
      /** Seals a VAPID private key under ENCRYPTION_KEY; 503 CONFIG_ERROR when the key is missing. */
      seal(plaintext: string): string;
      open(sealed: string): string;
    };
  }
}

/** Missing secrets do not stop the process (CONTRACT "Configuration"); the requests that need them get CONFIG_ERROR. */
export default fp(
  async (app: FastifyInstance) => {
    const { apiKeyPepper, encryptionKey, problems } = app.config;
    for (const problem of problems) app.log.error(`CONFIGURATION PROBLEM: ${problem}`);

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
      seal: (plaintext: string) => sealSecret(needKey(), plaintext),
      open: (sealed: string) => openSecret(needKey(), sealed),
    });
  },
  { name: 'secrets', dependencies: ['config'] },
);
