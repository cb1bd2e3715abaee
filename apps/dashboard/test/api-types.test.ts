import t from 'tap';
import { committedApiTypes, generatedApiTypes } from '../scripts/api-types.js';

// The dashboard's typed client must match the API it talks to: a route whose schema changed without
// `pnpm build` regenerating src/api/openapi.d.ts (and the change committed) fails here, and in CI.
t.test('the committed API types are generated from the current OpenAPI document', async (t) => {
  const committed = committedApiTypes();
  t.ok(committed, 'src/api/openapi.d.ts exists');
  const fresh = await generatedApiTypes();
  t.ok(fresh === committed, 'src/api/openapi.d.ts is up to date: run `pnpm build` and commit it');
  t.match(fresh, /"\/api\/v1\/apps\/\{appId\}\/keys": \{/, 'the document has the app routes');
});
