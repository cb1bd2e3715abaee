import { createDatabase, type Database } from '@webpush/db';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    db: Database;
    pingDatabase(): Promise<void>;
  }
}

export default fp(
  async (app: FastifyInstance) => {
    const handle = createDatabase(app.config.databaseUrl);
    app.decorate('db', handle.db);
    app.decorate('pingDatabase', async () => {
      await handle.sql`select 1`;
    });
    app.addHook('onClose', async () => handle.close());
  },
  { name: 'db', dependencies: ['config'] },
);
