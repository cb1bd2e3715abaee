import { Ajv } from 'ajv';
import t from 'tap';
import { operations, tags } from '../src/openapi/operations.js';
import { buildTestApp } from './helper.js';

// The API reference people read at /docs: every operation described, every body and the main
// answers with an example, each example valid against the schema that validates the real thing.
const { app } = await buildTestApp(t);
const document = (await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as {
  info: { title: string };
  tags?: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, unknown> };
};
interface Media {
  schema?: unknown;
  example?: unknown;
}
interface Operation {
  description?: string;
  tags?: string[];
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, { content?: Record<string, Media> }>;
}

const each = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })),
);

// OpenAPI 3.0 schema objects are JSON Schema with a few extra words (nullable, example): not strict.
const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema({ $id: 'openapi', components: document.components ?? {} });
const validate = (schema: unknown, value: unknown) => {
  const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/'));
  const check = ajv.compile(rewritten);
  return check(value) ? 'valid' : ajv.errorsText(check.errors);
};

t.test('the reference carries the product name and groups operations as a customer meets them', async (t) => {
  t.match(document.info.title, /^Web Push/);
  t.same(
    document.tags?.map((tag) => tag.name).slice(0, 2),
    ['sending', 'subscriptions'],
    'sending first, then subscribing',
  );
  const names = document.tags?.map((tag) => tag.name) ?? [];
  t.ok(names.indexOf('auth') > names.indexOf('webhooks'), 'accounts after apps, keys and webhooks');
  t.equal(names.at(-1), 'operator', 'the operator console at the very end');
  const used = new Set(each.flatMap(({ operation }) => operation.tags ?? []));
  for (const tag of used)
    t.ok(
      tags.some((entry) => entry.name === tag),
      `tag "${tag}" is described and ordered`,
    );
  const ui = await app.inject({ method: 'GET', url: '/docs/' });
  t.match(ui.body, /<title>Web Push — API reference<\/title>/, 'the docs page names the product');
});

t.test('every operation has a description', async (t) => {
  t.ok(each.length >= 45, `${each.length} operations`);
  for (const { name, operation } of each) t.ok((operation.description ?? '').length >= 20, `${name} is described`);
});

t.test('every request body has an example, and every example is valid', async (t) => {
  for (const { name, operation } of each) {
    const body = operation.requestBody?.content?.['application/json'];
    if (body) {
      t.not(body.example, undefined, `${name}: the body has an example`);
      if (body.example !== undefined)
        t.equal(validate(body.schema, body.example), 'valid', `${name}: the body example`);
    }
    for (const [status, answer] of Object.entries(operation.responses ?? {})) {
      const media = answer.content?.['application/json'];
      if (media?.example !== undefined) {
        t.equal(validate(media.schema, media.example), 'valid', `${name} ${status}: the answer example`);
      }
    }
  }
});

t.test('every JSON success answer has an example', async (t) => {
  for (const { name, operation } of each)
    for (const [status, answer] of Object.entries(operation.responses ?? {})) {
      const media = answer.content?.['application/json'];
      if (status.startsWith('2') && media) t.not(media.example, undefined, `${name} ${status}: an answer example`);
    }
});

t.test('the examples a customer needs first are there', async (t) => {
  for (const name of [
    'POST /api/v1/notify',
    'POST /api/v1/notify/batch',
    'POST /api/v1/subscribe',
    'GET /api/v1/vapid-public-key',
    'POST /api/v1/apps/{appId}/test-notification',
    'POST /api/v1/apps/{appId}/keys',
  ]) {
    const operation = each.find((entry) => entry.name === name)?.operation;
    const success = Object.entries(operation?.responses ?? {}).find(([status]) => status.startsWith('2'))?.[1];
    t.not(success?.content?.['application/json']?.example, undefined, `${name}: an answer example`);
  }
  // And the catalogue names no operation that does not exist (a moved route leaves no stale text).
  for (const key of Object.keys(operations))
    t.ok(
      each.some((entry) => entry.name === key),
      `${key} exists`,
    );
});

t.test('every error answer has an example, and it is its code’s real body', async (t) => {
  const planLimitCodes = ['PLAN_LIMIT_EXCEEDED', 'MONTHLY_LIMIT_EXCEEDED', 'SUBSCRIBER_LIMIT_EXCEEDED'];
  for (const { name, operation } of each) {
    for (const [status, answer] of Object.entries(operation.responses ?? {})) {
      const media = answer.content?.['application/json'];
      if (!media || status.startsWith('2')) continue;
      t.not(media.example, undefined, `${name} ${status}: the answer has an example`);
      if (media.example === undefined) continue;
      const example = media.example as { error?: string; code?: string; upgrade_url?: string };
      t.match(example.error, /[\u3040-\u30ff\u4e00-\u9fff]/, `${name} ${status}: the catalogue's Japanese message`);
      t.equal(
        'upgrade_url' in example,
        planLimitCodes.includes(example.code ?? ''),
        `${name} ${status}: upgrade_url only on a plan-limit code`,
      );
    }
  }
});

t.test('the English reference shows English examples and links back to the dashboard', async (t) => {
  const japanese = /[\u3040-\u30ff\u4e00-\u9fff]/;
  for (const { name, operation } of each) {
    const example = operation.requestBody?.content?.['application/json']?.example;
    if (example !== undefined) t.notMatch(JSON.stringify(example), japanese, `${name}: an English request example`);
  }
  const info = (document as unknown as { info: { description: string } }).info;
  t.match(info.description, /\[← Back to the dashboard\]\(http:\/\/localhost:3000\/\)/);
});
