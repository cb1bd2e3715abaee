import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

const compileSerializer = SerializerSelector();
const compiled = new Map<string, Serializer>();

/**
 * Fastify's response serializers (fast-json-stringify), compiled once per distinct schema instead
 * of once per route and status. The API declares ~600 response schemas but only ~75 distinct ones
 * (most are the error body of a status, repeated on every route), and each compile builds a
 * function, plus an Ajv instance for a union: a large share of the API's start-up (docs/performance.md).
 *
 * What fast-json-stringify compiles depends only on the schema, the schemas added to the instance
 * and the serializer options (the default compiler ignores the method, URL and status), so those
 * three, as JSON, are the key. Process-wide: one API per process in production; the tests build
 * many, and share the compiled functions too. Bounded by the distinct schemas in the code.
 */
export const cachingSerializerFactory: SerializerFactory = (externalSchemas, options) => {
  const compile = compileSerializer(externalSchemas, options);
  const scope = JSON.stringify([externalSchemas ?? null, options ?? null]);
  return (route) => {
    const key = `${scope}${JSON.stringify(route.schema)}`;
    let serializer = compiled.get(key);
    if (serializer === undefined) {
      serializer = compile(route);
      compiled.set(key, serializer);
    }
    return serializer;
  };
};
