import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { createDashboardDevServer } from '../dev-server.js';

// `pnpm dev` serves the dashboard through Vite from a clone where nothing is built yet: a workspace
// package the pages import (here @webpush/plans) must resolve to its sources, not to a dist/ that
// does not exist there.
t.test('the dev server resolves workspace packages to their sources', async (t) => {
  const server = createServer();
  const vite = await createDashboardDevServer({ httpServer: server });
  server.on('request', (request, response) =>
    vite.middlewares(request, response, () => {
      response.statusCode = 404;
      response.end();
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(async () => {
    await vite.close();
    await new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as AddressInfo;
  const response = await fetch(`http://127.0.0.1:${port}/src/features/webhooks/webhook-settings.tsx`);
  t.equal(response.status, 200);
  const code = await response.text();
  t.match(code, /from "[^"]*\/packages\/plans\/src\/index\.ts"/, '@webpush/plans from packages/plans/src');
  t.notMatch(code, /packages\/plans\/dist\//, 'not from its build');
});
