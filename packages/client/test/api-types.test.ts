import t from 'tap';
import { committedApiTypes, generatedApiTypes } from '../scripts/api-types.js';

// The client's types must match the API: a route whose schema changed without `pnpm build`
// regenerating src/openapi.ts (and the change committed) fails here, and in CI.
t.test('the committed client types are generated from the current OpenAPI document', async (t) => {
  const committed = committedApiTypes();
  t.ok(committed, 'src/openapi.ts exists');
  const fresh = await generatedApiTypes();
  t.ok(fresh === committed, 'src/openapi.ts is up to date: run `pnpm build` and commit it');
  t.match(fresh, /"\/api\/v1\/notify": \{/);
  t.notMatch(fresh, /"\/api\/v1\/auth\/login"/, 'only the API-key routes');
});
