import { apiTypes } from '@webpush/api/openapi-types';

/** The dashboard's typed API client: every route, GitHub sign-in included. */
const types = apiTypes({
  file: new URL('../src/api/openapi.d.ts', import.meta.url),
  generator: 'apps/dashboard/scripts/api-types.ts',
  target: 'apps/dashboard/src/api/openapi.d.ts',
  env: { GITHUB_CLIENT_ID: 'generate-types', GITHUB_CLIENT_SECRET: 'generate-types' },
});

export const generatedApiTypes = types.generated;
export const committedApiTypes = types.committed;
export const updateApiTypes = types.update;
