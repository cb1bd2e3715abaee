import t from 'tap';
import { ConfigValidationError, loadConfig } from '../src/index.js';

t.test('DASHBOARD_DEV_SERVER is refused when NODE_ENV=production', async (t) => {
  t.throws(
    () => loadConfig({ NODE_ENV: 'production', DASHBOARD_DEV_SERVER: 'true' }),
    new ConfigValidationError('invalid configuration: DASHBOARD_DEV_SERVER cannot be on when NODE_ENV=production'),
  );
  t.equal(loadConfig({ NODE_ENV: 'production', DASHBOARD_DEV_SERVER: 'false' }).dashboardDevServer, false);
  t.equal(loadConfig({ NODE_ENV: 'development', DASHBOARD_DEV_SERVER: 'true' }).dashboardDevServer, true);
});
