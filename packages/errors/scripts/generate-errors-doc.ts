// Writes docs/error-codes.md from the error catalogue; packages/errors/test/errors-doc.test.ts fails
// when the committed file differs from what this writes.
import { writeFileSync } from 'node:fs';
import { errorsDoc } from '../src/errors-doc.js';

const target = new URL('../../../docs/error-codes.md', import.meta.url);
writeFileSync(target, errorsDoc());
console.log(`wrote ${target.pathname}`);
