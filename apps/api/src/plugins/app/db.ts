import { createDatabase, type Database } from '@webpush/db';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    db: Database;
    pingDatabase(): Promise<void>;
  }
}

export interface DbPluginOptions {
  /** Test-only: sees the text of every statement sent (postgres.js `debug`). */
  onQuery?: (query: string) => void;
}

export default fp(
  async (app: FastifyInstance, options: DbPluginOptions) => {
    const handle = createDatabase(app.config.databaseUrl, { onQuery: options.onQuery });
    app.decorate('db', handle.db);
    app.decorate('pingDatabase', async () => {
      await handle.sql`select 1`;
    });
    app.addHook('onClose', async () => handle.close());
  },
  { name: 'db', dependencies: ['config'] },
);
