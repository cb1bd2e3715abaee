import argon2 from 'argon2';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    passwords: {
      hash(password: string): Promise<string>;
      /** Verifies against the stored hash, or against a dummy when there is none, so timing does not tell. */
      verify(storedHash: string | null, password: string): Promise<boolean>;
    };
  }
}

// OWASP's argon2id baseline (19 MiB, 2 passes, 1 lane): affordable on a 2-core box (docs/performance.md).
const ARGON2_OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export default fp(
  async (app: FastifyInstance) => {
    const dummyHash = await argon2.hash('timing-equaliser-not-a-password', ARGON2_OPTIONS);
    app.decorate('passwords', {
      hash: (password: string) => argon2.hash(password, ARGON2_OPTIONS),
      verify: async (storedHash: string | null, password: string) => {
        const matches = await argon2.verify(storedHash ?? dummyHash, password).catch(() => false);
        return storedHash !== null && matches;
      },
    });
  },
  { name: 'passwords' },
);
