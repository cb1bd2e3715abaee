// `pnpm build` for the dashboard: typed API client from the API's OpenAPI document, the Vite build,
// the pricing page prerendered into dist/pricing.html and dist/pricing.ja.html, and the first page's gzip size (≤ 200 kB).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';
import { updateApiTypes } from './api-types.js';
import { localizeIndex, prerenderPricing } from './prerender.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const BUDGET_BYTES = 200 * 1024;

const types = await updateApiTypes(process.env.CI === 'true');
console.log(`api types: ${types} (src/api/openapi.d.ts)`);

await build({ root, configFile: join(root, 'vite.config.ts'), logLevel: 'warn' });

const index = readFileSync(join(dist, 'index.html'), 'utf8');
if (/<script(?![^>]*\bsrc=)[^>]*>/.test(index))
  throw new Error('dist/index.html has an inline script: the CSP forbids it');
// One page per language: the API serves the one Accept-Language (or the wp_lang cookie) asks for.
writeFileSync(join(dist, 'index.html'), localizeIndex(index, 'en'));
writeFileSync(join(dist, 'index.ja.html'), localizeIndex(index, 'ja'));
writeFileSync(join(dist, 'pricing.html'), prerenderPricing(index, 'en'));
writeFileSync(join(dist, 'pricing.ja.html'), prerenderPricing(index, 'ja'));

/** JS and CSS the first page loads: the entry script, its preloads and stylesheets. */
const firstPage = [...index.matchAll(/(?:src|href)="\/(assets\/[^"]+\.(?:js|css))"/g)].map((match) => match[1] ?? '');
const gzipBytes = firstPage.reduce((sum, file) => sum + gzipSync(readFileSync(join(dist, file))).length, 0);
console.log(
  `dashboard first page: ${(gzipBytes / 1024).toFixed(1)} kB gzip (JS + CSS, budget ${BUDGET_BYTES / 1024} kB): ${firstPage.join(', ')}`,
);
if (gzipBytes > BUDGET_BYTES) {
  console.error('the dashboard is over its size budget');
  process.exit(1);
}
