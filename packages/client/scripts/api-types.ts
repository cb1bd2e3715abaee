import { apiTypes } from '@webpush/api/openapi-types';

/**
 * The routes a customer's server calls with an API key: the client's whole surface. The types of
 * these paths come from the API's OpenAPI document, so a route change breaks the client's types
 * (and this package's build), not its users. Shipped compiled, so the package builds without the API.
 */
export const CLIENT_PATHS = [
  '/api/v1/notify',
  '/api/v1/notify/batch',
  '/api/v1/notifications/{id}',
  '/api/v1/subscribe',
  '/api/v1/vapid-public-key',
  '/api/v1/apps/{appId}/test-notification',
] as const;

const types = apiTypes({
  file: new URL('../src/openapi.ts', import.meta.url),
  generator: 'packages/client/scripts/api-types.ts',
  target: 'packages/client/src/openapi.ts',
  paths: CLIENT_PATHS,
});

export const generatedApiTypes = types.generated;
export const committedApiTypes = types.committed;
export const updateApiTypes = types.update;
