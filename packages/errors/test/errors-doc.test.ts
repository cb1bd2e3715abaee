import { readFileSync } from 'node:fs';
import t from 'tap';
import { errorCatalogue } from '../src/catalogue.js';
import { errorsDoc } from '../src/errors-doc.js';

const committed = readFileSync(new URL('../../../docs/error-codes.md', import.meta.url), 'utf8');

t.test('docs/error-codes.md is the catalogue’s, up to date', async (t) => {
  t.equal(committed, errorsDoc(), 'regenerate it: node --import tsx packages/errors/scripts/generate-errors-doc.ts');
});

t.test('every code is listed with its status and an English meaning', async (t) => {
  for (const [code, definition] of Object.entries(errorCatalogue)) {
    const row = committed.split('\n').find((line) => line.startsWith(`| \`${code}\` | `));
    t.ok(row, `${code} is listed`);
    t.match(row, ` | ${definition.status} | `, `${code}: its status`);
    t.match(row?.split(' | ')[2] ?? '', /^[A-Z][^\u3040-\u30ff\u4e00-\u9fff]+$/, `${code}: an English meaning`);
  }
});
