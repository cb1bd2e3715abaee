import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createServer, defaultClientConditions } from 'vite';
import config from './vite.config.js';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * `pnpm dev`: Vite in middleware mode inside the API process, so the dashboard, the API and the
 * `wp_session` cookie share one origin (http://localhost:3000) and edits reload at once. The HMR
 * websocket rides on the API's own HTTP server: no second port.
 */
export async function createDashboardDevServer(options: { httpServer: Server }) {
  const vite = await createServer({
    ...config,
    root,
    // Imported, not loaded by Vite: Vite would bundle the config into a temporary file next to it,
    // and `node --watch` (pnpm dev) would restart the API each time that file comes and goes.
    configFile: false,
    appType: 'custom',
    // The workspace packages from their sources, as the API and worker run under `pnpm dev`: their
    // `default` export is dist/, which a fresh clone has not built.
    resolve: { ...config.resolve, conditions: ['webpush-source', ...defaultClientConditions] },
    server: { middlewareMode: true, hmr: { server: options.httpServer } },
    logLevel: 'warn',
  });
  return {
    middlewares: vite.middlewares,
    async html(url: string) {
      return vite.transformIndexHtml(url, await readFile(`${root}index.html`, 'utf8'));
    },
    close: () => vite.close(),
  };
}
