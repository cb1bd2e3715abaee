import t from 'tap';
import { buildTestApp, registerUser } from '../helper.js';

t.test('smoke', async (t) => {
  const { app } = await buildTestApp(t);
  const res = await app.inject({ method: 'GET', url: '/healthz' });
  t.equal(res.statusCode, 200);
  const user = await registerUser(app);
  t.match(user.token, /^wps_/);
});
