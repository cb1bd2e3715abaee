import t from 'tap';
import { buildTestApp } from '../../helper.js';

// The project's own API docs: an OpenAPI 3 document generated from the route schemas, and a UI.
const ctx = await buildTestApp(t);
const { app } = ctx;

interface Operation {
  responses?: Record<string, { description?: unknown; $ref?: string }>;
  parameters?: { name: string; in: string; required?: boolean }[];
  security?: Record<string, string[]>[];
  operationId?: string;
}
interface OpenApiDocument {
  openapi: string;
  info: { title?: unknown; version?: unknown };
  paths: Record<string, Record<string, Operation>>;
  components?: { securitySchemes?: Record<string, unknown> };
}

const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

const response = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
const document = response.json() as OpenApiDocument;

t.test('GET /api/v1/openapi.json answers a JSON document', async (t) => {
  t.equal(response.statusCode, 200);
  t.match(response.headers['content-type'], /^application\/json/);
});

t.test('the document is well-formed OpenAPI 3', async (t) => {
  t.match(document.openapi, /^3\.\d+\.\d+$/, 'openapi version');
  t.type(document.info.title, 'string');
  t.type(document.info.version, 'string');
  t.type(document.paths, 'object');

  const schemes = new Set(Object.keys(document.components?.securitySchemes ?? {}));
  const operationIds = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    t.match(path, /^\/[^\s]*$/, `${path} is a path template`);
    t.notOk(path.length > 1 && path.endsWith('/'), `${path} has no trailing slash`);
    t.notOk(path.includes(':'), `${path} uses {param}, not :param`);
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
    for (const [method, operation] of Object.entries(item)) {
      if (method === 'parameters' || method === 'summary' || method === 'description') continue;
      t.ok(METHODS.has(method), `${method} ${path}: a valid method`);
      const responses = Object.entries(operation.responses ?? {});
      t.ok(responses.length > 0, `${method} ${path} documents responses`);
      for (const [status, answer] of responses) {
        t.match(status, /^([1-5]\d\d|[1-5]XX|default)$/, `${method} ${path}: ${status} is a status`);
        t.ok(
          answer.$ref !== undefined || typeof answer.description === 'string',
          `${method} ${path} ${status} has a description`,
        );
      }
      for (const name of templated) {
        const parameter = operation.parameters?.find((p) => p.in === 'path' && p.name === name);
        t.ok(parameter?.required, `${method} ${path} declares its path parameter ${name}`);
      }
      for (const requirement of operation.security ?? []) {
        for (const scheme of Object.keys(requirement)) t.ok(schemes.has(scheme), `security scheme ${scheme} exists`);
      }
      if (operation.operationId) {
        t.notOk(operationIds.has(operation.operationId), `operationId ${operation.operationId} is unique`);
        operationIds.add(operation.operationId);
      }
    }
  }

  // Every local $ref points at something in the document.
  const refs = [...JSON.stringify(document).matchAll(/"\$ref":"([^"]+)"/g)].map((match) => match[1] ?? '');
  for (const ref of new Set(refs)) {
    t.match(ref, /^#\//, `${ref} is local`);
    let target: unknown = document;
    for (const segment of ref.slice(2).split('/')) {
      target = (target as Record<string, unknown> | undefined)?.[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
    }
    t.ok(target !== undefined, `${ref} resolves`);
  }
});

t.test('every control-plane route is documented with its success and error statuses', async (t) => {
  const expected: [method: string, path: string, success: string[], errors: string[]][] = [
    ['post', '/api/v1/auth/register', ['201'], ['400', '409', '429', '503']],
    ['post', '/api/v1/auth/login', ['200'], ['400', '401', '429']],
    ['post', '/api/v1/auth/logout', ['204'], ['401']],
    ['get', '/api/v1/auth/me', ['200'], ['401']],
    ['get', '/api/v1/auth/github', ['302'], ['429', '503']],
    ['get', '/api/v1/auth/github/callback', ['302'], ['400', '403', '409', '502', '503']],
    ['post', '/api/v1/auth/verify-email', ['200'], ['400', '429']],
    ['post', '/api/v1/auth/verify-email/resend', ['202'], ['401', '429']],
    ['post', '/api/v1/auth/password-reset', ['202'], ['400', '429']],
    ['post', '/api/v1/auth/password-reset/confirm', ['200'], ['400', '429']],
    ['get', '/api/v1/auth/sessions', ['200'], ['401']],
    ['delete', '/api/v1/auth/sessions', ['204'], ['401']],
    ['delete', '/api/v1/auth/sessions/{id}', ['204'], ['401', '404']],
    ['patch', '/api/v1/apps/{appId}', ['200'], ['400', '401', '404']],
    ['post', '/api/v1/apps', ['201'], ['400', '401', '403', '503']],
    ['get', '/api/v1/apps', ['200'], ['401']],
    ['get', '/api/v1/apps/{appId}', ['200'], ['401', '404']],
    ['delete', '/api/v1/apps/{appId}', ['204'], ['401', '404']],
    ['post', '/api/v1/apps/{appId}/keys', ['201'], ['400', '401', '404']],
    ['get', '/api/v1/apps/{appId}/keys', ['200'], ['401', '404']],
    ['delete', '/api/v1/apps/{appId}/keys/{keyId}', ['204'], ['401', '404']],
    ['post', '/api/v1/subscribe', ['200', '201'], ['400', '401', '403', '429']],
    ['delete', '/api/v1/subscribe', ['204'], ['400', '401', '403', '404', '429']],
    ['get', '/api/v1/vapid-public-key', ['200'], ['401', '403', '429']],
    ['get', '/api/v1/plans', ['200'], []],
    ['get', '/api/v1/auth/providers', ['200'], []],
    ['get', '/api/v1/apps/{appId}/notifications', ['200'], ['400', '401', '404']],
    ['post', '/api/v1/apps/{appId}/notifications', ['202'], ['400', '401', '404', '410', '413', '429', '503']],
    ['get', '/api/v1/apps/{appId}/subscribers', ['200'], ['400', '401', '404']],
    ['delete', '/api/v1/apps/{appId}/subscribers/{subscriberId}', ['204'], ['401', '404']],
    ['get', '/api/v1/apps/{appId}/usage', ['200'], ['400', '401', '404']],
    ['post', '/api/v1/events', ['202'], ['400', '401', '403', '429']],
  ];
  for (const [method, path, success, errors] of expected) {
    const operation = document.paths[path]?.[method];
    t.ok(operation, `${method.toUpperCase()} ${path} is documented`);
    const statuses = Object.keys(operation?.responses ?? {});
    for (const status of [...success, ...errors]) {
      t.ok(statuses.includes(status), `${method.toUpperCase()} ${path} documents ${status}`);
    }
  }

  // The codes behind each error status are named, so a client knows what to branch on.
  const codesOf = (method: string, path: string, status: string) =>
    JSON.stringify(document.paths[path]?.[method]?.responses?.[status] ?? {});
  t.match(codesOf('post', '/api/v1/subscribe', '429'), /SUBSCRIBER_LIMIT_EXCEEDED/);
  t.match(codesOf('post', '/api/v1/subscribe', '429'), /RATE_LIMITED/);
  t.match(codesOf('post', '/api/v1/subscribe', '400'), /INVALID_ENDPOINT/);
  t.match(codesOf('post', '/api/v1/apps', '403'), /PLAN_LIMIT_EXCEEDED/);
  t.match(codesOf('post', '/api/v1/apps/{appId}/keys', '400'), /INVALID_SCOPE/);
  t.match(codesOf('post', '/api/v1/auth/register', '409'), /EMAIL_IN_USE/);
  t.match(codesOf('post', '/api/v1/auth/login', '401'), /INVALID_CREDENTIALS/);
  t.match(codesOf('post', '/api/v1/apps/{appId}/notifications', '429'), /MONTHLY_LIMIT_EXCEEDED/);
  t.match(codesOf('post', '/api/v1/apps/{appId}/notifications', '429'), /RATE_LIMITED/);
  t.match(codesOf('post', '/api/v1/apps/{appId}/notifications', '410'), /SUBSCRIPTION_EXPIRED/);
  t.match(codesOf('get', '/api/v1/apps/{appId}/subscribers', '400'), /INVALID_INPUT/);
  t.match(codesOf('post', '/api/v1/auth/verify-email', '400'), /INVALID_TOKEN/);
  t.match(codesOf('post', '/api/v1/auth/password-reset/confirm', '400'), /INVALID_TOKEN/);
  t.match(codesOf('get', '/api/v1/auth/github/callback', '409'), /EMAIL_IN_USE/);
  for (const [method, path] of [
    ['post', '/api/v1/subscribe'],
    ['delete', '/api/v1/subscribe'],
    ['get', '/api/v1/vapid-public-key'],
  ] as const) {
    t.match(codesOf(method, path, '403'), /ORIGIN_NOT_ALLOWED/, `${method} ${path} names ORIGIN_NOT_ALLOWED`);
  }
  // Audiences and scheduled sends (docs/sending.md).
  t.match(codesOf('post', '/api/v1/subscribe', '403'), /INVALID_UID_SIGNATURE/);
  t.match(codesOf('patch', '/api/v1/subscribe', '404'), /NOT_FOUND/);
  t.match(codesOf('patch', '/api/v1/subscribe', '403'), /INSUFFICIENT_SCOPE/);
  t.match(codesOf('delete', '/api/v1/notifications/{id}', '409'), /NOT_CANCELABLE/);
  t.match(codesOf('delete', '/api/v1/apps/{appId}/notifications/{id}', '409'), /NOT_CANCELABLE/);
  t.match(codesOf('post', '/api/v1/apps/{appId}/identity-secret', '404'), /NOT_FOUND/);
  t.ok(document.paths['/api/v1/apps/{appId}/identity-secret']?.post?.responses?.['201'], 'identity secret is 201');
  const bodyOf = (method: string, path: string) =>
    JSON.stringify((document.paths[path]?.[method] as { requestBody?: unknown } | undefined)?.requestBody ?? {});
  for (const field of ['uids', 'tags', 'sendAt']) {
    t.match(bodyOf('post', '/api/v1/notify'), new RegExp(`"${field}"`), `/notify documents ${field}`);
    t.match(bodyOf('post', '/api/v1/apps/{appId}/notifications'), new RegExp(`"${field}"`), `session send: ${field}`);
  }
  for (const field of ['uid', 'tags', 'uidSignature']) {
    t.match(bodyOf('post', '/api/v1/subscribe'), new RegExp(`"${field}"`), `/subscribe documents ${field}`);
  }
  const schemas = JSON.stringify(document);
  t.match(schemas, /"scheduled".*"canceled"/, 'the notification status lists scheduled and canceled');
  t.match(schemas, /errorCode/, 'the notification object documents errorCode');
  t.match(schemas, /emailVerified/, 'the user object documents emailVerified');
  t.match(schemas, /allowedOrigins/, 'the app object documents allowedOrigins');
  for (const field of ['notificationId', 'endpoint', 'type']) {
    t.match(bodyOf('post', '/api/v1/events'), new RegExp(`"${field}"`), `/events documents ${field}`);
  }
  t.match(codesOf('post', '/api/v1/events', '400'), /INVALID_ENDPOINT/);
  const notification = JSON.stringify(document.paths['/api/v1/notifications/{id}']?.get?.responses?.['200'] ?? {});
  t.match(notification, /"shown"/, 'the notification object documents shown');
  t.match(notification, /"clicked"/, 'the notification object documents clicked');
});

t.test('the dashboard lists document their query parameters with types and bounds', async (t) => {
  type Parameter = { name: string; in: string; schema?: Record<string, unknown> };
  const query = (path: string) =>
    Object.fromEntries(
      ((document.paths[path]?.get?.parameters ?? []) as Parameter[])
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => [parameter.name, parameter.schema ?? {}]),
    );
  for (const path of ['/api/v1/apps/{appId}/notifications', '/api/v1/apps/{appId}/subscribers']) {
    const parameters = query(path);
    t.match(parameters.limit, { type: 'integer', minimum: 1, maximum: 100, default: 20 }, `${path} limit`);
    t.match(parameters.cursor, { type: 'string' }, `${path} cursor`);
  }
  t.match(JSON.stringify(query('/api/v1/apps/{appId}/subscribers').status), /"active".*"expired"/, 'status values');
  t.match(query('/api/v1/apps/{appId}/subscribers').uid, { type: 'string' }, 'uid filter');
  t.match(query('/api/v1/apps/{appId}/subscribers').tag, { type: 'string' }, 'tag filter');
  t.match(query('/api/v1/apps/{appId}/usage').days, { type: 'integer', minimum: 1, maximum: 90, default: 30 });
  t.strictSame(document.paths['/api/v1/plans']?.get?.security, [], 'GET /plans needs no auth');
});

t.test('documented paths are served', async (t) => {
  // The document drops the trailing slash of a resource root; the route answers without it.
  const anonymous = await app.inject({ method: 'GET', url: '/api/v1/apps' });
  t.equal(anonymous.statusCode, 401, 'GET /api/v1/apps exists (and wants a session)');
  const slash = await app.inject({ method: 'GET', url: '/api/v1/apps/' });
  t.equal(slash.statusCode, 401, 'so does /api/v1/apps/');
});

t.test('GET /docs serves the API reference UI', async (t) => {
  let docs = await app.inject({ method: 'GET', url: '/docs' });
  for (let hops = 0; hops < 3 && docs.statusCode >= 300 && docs.statusCode < 400; hops++) {
    const location = String(docs.headers.location);
    docs = await app.inject({ method: 'GET', url: new URL(location, 'http://localhost/docs/').pathname });
  }
  t.equal(docs.statusCode, 200);
  t.match(docs.headers['content-type'], /^text\/html/);
  t.match(docs.body, /swagger|openapi|redoc|scalar/i);
  // The header shows the service's mark, not swagger-ui's default logo.
  const initializer = await app.inject({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
  t.equal(initializer.statusCode, 200);
  const mark = Buffer.from(/data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(initializer.body)?.[1] ?? '', 'base64');
  t.match(mark.toString(), /<title>Web Push<\/title>/, 'the logo is the Web Push mark');
});

t.test('every operation describes its success and lists the errors any route can give', async (t) => {
  const bodyRoutes = new Set([
    'post /api/v1/auth/register',
    'post /api/v1/apps',
    'patch /api/v1/apps/{appId}',
    'post /api/v1/auth/password-reset',
    'post /api/v1/auth/password-reset/confirm',
    'post /api/v1/auth/verify-email',
    'post /api/v1/subscribe',
    'post /api/v1/notify',
    'post /api/v1/apps/{appId}/notifications',
  ]);
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.has(method)) continue;
      const responses = operation.responses ?? {};
      for (const [status, value] of Object.entries(responses)) {
        if (status.startsWith('2'))
          t.not(value.description, 'Default Response', `${method} ${path} ${status} is described`);
      }
      t.ok(responses['500'], `${method} ${path} documents 500`);
      if (bodyRoutes.has(`${method} ${path}`)) {
        t.ok(responses['413'], `${method} ${path} documents 413`);
        t.ok(responses['415'], `${method} ${path} documents 415`);
      }
    }
  }
});
