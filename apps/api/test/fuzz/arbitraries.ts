import fc from 'fast-check';

/**
 * Generators for the API fuzz (test/fuzz.test.ts): request bodies built from a route's JSON schema
 * (as the OpenAPI document gives it) and then mutated, hostile strings and numbers, raw payloads
 * JSON.stringify cannot produce, and hostile path segments.
 */

export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  examples?: unknown[];
  example?: unknown;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  maxLength?: number;
  [keyword: string]: unknown;
};

/** Strings PostgreSQL, JSON, URLs or people get wrong. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '   ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfffy',
    '\ud83d',
    '\u202e\u200b\ufeff',
    '\r\n\t\u0007\u001b[31m',
    '__proto__',
    'constructor',
    '%00',
    '%ZZ',
    "'; drop table users; --",
    '${7*7}{{7*7}}',
    'ｏｗｎｅｒ＠ｅｘａｍｐｌｅ．ｃｏｍ',
    'оwner@example.com', // Cyrillic о
    'owner@exаmple.com', // Cyrillic а
    'OWNER@EXAMPLE.COM',
    'owner@example.com\u0000.evil',
    'a@b',
    '@',
    'https://',
    'https://fcm.googleapis.com',
    'https://fcm.googleapis.com/',
    'https://user:pw@fcm.googleapis.com/x',
    'https://fcm.googleapis.com/x#frag',
    'https://[::1]/x',
    'https://fcm.googleapis.com:0/x',
    'https://fcm.googleapis.com/\u0000',
    `https://fcm.googleapis.com/${'é'.repeat(2000)}`,
    `https://fcm.googleapis.com/${'\u{1F600}'.repeat(1000)}`,
    'javascript:alert(1)',
    'http://fcm.googleapis.com/x',
    '😀'.repeat(40),
    'é'.repeat(3000),
    'x'.repeat(2049),
    'x'.repeat(70_000),
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ maxLength: 3000 }),
);

export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    0,
    -0,
    -1,
    0.5,
    -0.5,
    1e-300,
    2 ** 31,
    2 ** 31 - 1,
    -(2 ** 31) - 1,
    2 ** 53 + 2,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_VALUE,
    -Number.MAX_VALUE,
    1e21,
  ),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** Arrays/objects nested `depth` levels. */
const nested = (depth: number): unknown => {
  let value: unknown = 'x';
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
};

/** Any JSON value, weighted towards the awkward ones. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  hostileNumber,
  fc.constantFrom(null, true, false, [], {}, [null], { __proto__: { polluted: true } }, nested(200)),
  fc.jsonValue({ maxDepth: 3 }),
  fc.array(hostileString, { maxLength: 3 }),
);

function stringFor(schema: JsonSchema): fc.Arbitrary<string> {
  const examples = [...(schema.examples ?? []), ...(schema.example === undefined ? [] : [schema.example])].filter(
    (value): value is string => typeof value === 'string',
  );
  const pattern = typeof schema.pattern === 'string' ? schema.pattern : undefined;
  const plain = pattern?.startsWith('^https://')
    ? fc.webUrl({ validSchemes: ['https'] })
    : pattern
      ? fc.stringMatching(new RegExp(pattern))
      : fc.string({ minLength: typeof schema.minLength === 'number' ? schema.minLength : 0, maxLength: 30 });
  return examples.length > 0 ? fc.oneof(fc.constantFrom(...examples), plain) : plain;
}

/**
 * A value that satisfies (or nearly satisfies) `schema`. `endpoints` are real push endpoints the
 * fuzz may use wherever the schema asks for one, so requests also get past validation.
 */
export function valueFor(
  schema: JsonSchema | undefined,
  endpoints: readonly string[],
  depth = 0,
): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.constant('x');
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map((option) => valueFor(option, endpoints, depth + 1)));
  if (schema.allOf?.length) {
    const merged: JsonSchema = { type: 'object', properties: {}, required: [] };
    for (const part of schema.allOf) {
      Object.assign(merged.properties as object, part.properties);
      merged.required?.push(...(part.required ?? []));
    }
    return valueFor(merged, endpoints, depth + 1);
  }
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (schema['x-push-endpoint'] && endpoints.length > 0) return fc.constantFrom(...endpoints);
  switch (type) {
    case 'string':
      return stringFor(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 1_000_000 });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(valueFor(schema.items, endpoints, depth + 1), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 3, 3),
      });
    case 'object': {
      const properties = schema.properties ?? {};
      const required = new Set(schema.required ?? []);
      const entries = Object.entries(properties).map(
        ([name, property]) =>
          [
            name,
            required.has(name)
              ? valueFor(property, endpoints, depth + 1)
              : fc.option(valueFor(property, endpoints, depth + 1), { nil: undefined }),
          ] as const,
      );
      return fc.tuple(...entries.map(([, arbitrary]) => arbitrary)).map((values) => {
        const object: Record<string, unknown> = {};
        entries.forEach(([name], index) => {
          if (values[index] !== undefined) object[name] = values[index];
        });
        return object;
      });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Paths to every value inside a JSON value (objects and arrays), the root included. */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const paths = [prefix];
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) paths.push(...pathsOf(item, [...prefix, index]));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) paths.push(...pathsOf(item, [...prefix, key]));
  }
  return paths;
}

function replaceAt(value: unknown, path: readonly (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const [head, ...rest] = path as [string | number, ...(string | number)[]];
  if (Array.isArray(value))
    return value.map((item, index) => (index === head ? replaceAt(item, rest, replacement) : item));
  const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  copy[head] = replaceAt(copy[head], rest, replacement);
  return copy;
}

/** ~1,900 CJK characters that do not compress: under 2,048 characters, over a btree entry's byte limit. */
const incompressible = fc
  .array(fc.integer({ min: 0x4e00, max: 0x9fff }), { minLength: 1_800, maxLength: 1_900 })
  .map((codes) => String.fromCodePoint(...codes));

/** Fragments that, put into an otherwise valid string, test what the storage and the parsers accept. */
export const poison = fc.oneof(
  incompressible,
  fc.constantFrom(
    '\u0000',
    '\ud800',
    '\udc00',
    '\u0007\u001b',
    '\u202e',
    'é'.repeat(1500),
    '😀'.repeat(800),
    'x'.repeat(3000),
    'x'.repeat(70_000),
    '%00',
  ),
);

/** Every string inside `value` with `fragment` put at its start, middle or end. */
function poisonStrings(value: unknown, fragment: string, where: number): unknown {
  if (typeof value === 'string') {
    const at = [0, Math.floor(value.length / 2), value.length][where % 3] ?? 0;
    return value.slice(0, at) + fragment + value.slice(at);
  }
  if (Array.isArray(value)) return value.map((item) => poisonStrings(item, fragment, where));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, poisonStrings(item, fragment, where)]));
  }
  return value;
}

/** A schema-built body with one place (or an added key) replaced by a hostile value, or every string poisoned. */
export function mutatedBody(base: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc
    .tuple(
      base,
      fc.nat(),
      hostileValue,
      fc.constantFrom('replace', 'replace', 'add', 'drop', 'poison', 'poison'),
      poison,
    )
    .map(([body, pick, hostile, how, fragment]) => {
      if (how === 'poison') return poisonStrings(body, fragment, pick);
      const paths = pathsOf(body);
      const path = paths[pick % paths.length] ?? [];
      if (how === 'replace') return replaceAt(body, path, hostile);
      if (how === 'add' && body !== null && typeof body === 'object' && !Array.isArray(body)) {
        return {
          ...(body as object),
          [['__proto__', 'constructor', 'extra', 'prototype'][pick % 4] as string]: hostile,
        };
      }
      if (how === 'drop' && path.length > 0) return replaceAt(body, path, undefined);
      return body;
    });
}

/** Raw payloads JSON.stringify never writes: invalid UTF-8, duplicate keys, escapes of lone surrogates, nesting. */
export function rawBody(valid: fc.Arbitrary<unknown>): fc.Arbitrary<Buffer> {
  const json = valid.map((value) => JSON.stringify(value ?? {}));
  return fc.oneof(
    // Invalid UTF-8 (a lone continuation byte, a truncated sequence, an encoded surrogate, overlong NUL) inside a string.
    fc
      .tuple(
        json,
        fc.constantFrom([0x80], [0xc3], [0xed, 0xa0, 0x80], [0xc0, 0x80], [0xff, 0xfe], [0xf4, 0x90, 0x80, 0x80]),
      )
      .map(([text, bytes]) => {
        const at = text.indexOf('":"');
        if (at < 0) return Buffer.concat([Buffer.from('{"x":"'), Buffer.from(bytes), Buffer.from('"}')]);
        return Buffer.concat([Buffer.from(text.slice(0, at + 3)), Buffer.from(bytes), Buffer.from(text.slice(at + 3))]);
      }),
    // Every string's first character replaced by an escaped NUL or lone surrogate.
    fc
      .tuple(json, fc.constantFrom('\\u0000', '\\ud800', '\\udc00x', '\\u0000\\u0000'))
      .map(([text, escaped]) => Buffer.from(text.replaceAll('":"', `":"${escaped}`))),
    // Duplicate keys: the last one wins in JSON.parse; the first one might be what a check saw.
    json.map((text) => {
      const inner = text.slice(1, -1);
      return Buffer.from(inner ? `{${inner},${inner}}` : '{"a":1,"a":2}');
    }),
    json.map((text) =>
      Buffer.from(`{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"x":1}},${text.slice(1)}`),
    ),
    fc.constantFrom(
      Buffer.from(`${'['.repeat(5000)}${']'.repeat(5000)}`),
      Buffer.from(`${'{"a":'.repeat(3000)}1${'}'.repeat(3000)}`),
      Buffer.from('{"a":'),
      Buffer.from('\ufeff{}'),
      Buffer.from('null'),
      Buffer.from('[]'),
      Buffer.from('"string"'),
      Buffer.from('1e999999'),
      Buffer.from('{"a":1e999999}'),
      Buffer.from('{"a":NaN}'),
      Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]),
      Buffer.alloc(70_000, 0x20),
    ),
  );
}

export const contentTypes = fc.constantFrom(
  'application/json',
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'application/json;;;',
  'application/merge-patch+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  '*/*',
  'garbage',
  undefined,
);

export const contentEncodings = fc.constantFrom(undefined, undefined, undefined, 'gzip', 'br', 'identity', 'x-garbage');

export const idempotencyKeys = fc.constantFrom(
  undefined,
  undefined,
  'fuzz-key-1',
  '',
  ' ',
  'k'.repeat(256),
  'k'.repeat(5000),
  'caf\u00e9',
  'a b',
  '\u0000',
);

/** A path segment: a real id, a random uuid, or something hostile (already percent-encoded where needed). */
export function pathSegment(realIds: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...realIds), weight: 4 },
    { arbitrary: fc.uuid().map((id) => id), weight: 2 },
    { arbitrary: fc.constantFrom(...realIds).map((id) => id.toUpperCase()), weight: 1 },
    {
      arbitrary: fc.constantFrom(
        'not-a-uuid',
        '0',
        '-1',
        '%00',
        '%ZZ',
        '%ED%A0%80',
        '%F0%9F%98%80',
        '%C0%80',
        '..%2F..%2Fetc',
        '00000000-0000-0000-0000-000000000000',
        'ffffffff-ffff-ffff-ffff-ffffffffffff%00',
        'x'.repeat(10_000),
        '__proto__',
        '%20',
      ),
      weight: 3,
    },
    { arbitrary: fc.string({ maxLength: 50 }).map((text) => encodeURIComponent(text) || 'x'), weight: 2 },
  );
}
