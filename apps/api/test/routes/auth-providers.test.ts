import t from 'tap';
import { buildTestApp } from '../helper.js';

// GET /auth/providers: tells the dashboard whether to offer "Sign in with GitHub".
t.test('github is false when GitHub sign-in is not configured', async (t) => {
  const { app } = await buildTestApp(t, { GITHUB_CLIENT_ID: undefined, GITHUB_CLIENT_SECRET: undefined });
  const response = await app.inject({ method: 'GET', url: '/api/v1/auth/providers' });
  t.equal(response.statusCode, 200);
  t.match(response.headers['content-type'], /^application\/json; charset=utf-8$/);
  t.strictSame(response.json(), { github: false });
});

t.test('github is false with only half of the credentials', async (t) => {
  const { app } = await buildTestApp(t, { GITHUB_CLIENT_ID: 'id-only', GITHUB_CLIENT_SECRET: undefined });
  t.strictSame((await app.inject({ method: 'GET', url: '/api/v1/auth/providers' })).json(), { github: false });
});

t.test('github is true when the client id and secret are set, and no session is needed', async (t) => {
  const { app } = await buildTestApp(t, { GITHUB_CLIENT_ID: 'client-id', GITHUB_CLIENT_SECRET: 'client-secret' });
  const response = await app.inject({ method: 'GET', url: '/api/v1/auth/providers' });
  t.equal(response.statusCode, 200);
  t.strictSame(response.json(), { github: true });
});
