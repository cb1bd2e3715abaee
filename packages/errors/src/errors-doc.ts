import { errorCatalogue, errorDetails } from './catalogue.js';
import { errorDetailMeanings, errorMeanings } from './meanings.js';

const cell = (text: string) => text.replaceAll('|', '\\|');

/** docs/error-codes.md, from the catalogue: every code with its status, English meaning and Japanese message. */
export function errorsDoc(): string {
  const codes = Object.entries(errorCatalogue).map(
    ([code, definition]) =>
      `| \`${code}\` | ${definition.status} | ${cell(errorMeanings[code as keyof typeof errorMeanings])} | ${cell(definition.message)} |`,
  );
  const details = Object.entries(errorDetails).map(
    ([name, detail]) =>
      `| \`${detail.code}\` | ${cell(errorDetailMeanings[name as keyof typeof errorDetailMeanings])} | ${cell(detail.message)} |`,
  );
  return [
    '# Error codes',
    '',
    '<!-- Generated from packages/errors by `node --import tsx packages/errors/scripts/generate-errors-doc.ts`; edit the catalogue, not this file. -->',
    '',
    'Every error the API answers has the body `{"error": "…", "code": "…"}`, plus `upgrade_url` (the',
    'pricing page) on the three plan-limit codes. The `error` message is Japanese, by the service’s',
    'contract, whatever language the request prefers: branch on `code`, never on the message, and show',
    'people your own words for it. Each code always answers with the status below (`INVALID_INPUT` is',
    '415 when the body is not `application/json`).',
    '',
    '| Code | Status | Meaning | Message |',
    '|---|---|---|---|',
    ...codes,
    '',
    '## Sharper messages within a code',
    '',
    'Where one code covers several rules, the message says which one was broken; the code stays the',
    'same.',
    '',
    '| Code | When | Message |',
    '|---|---|---|',
    ...details,
    '',
  ].join('\n');
}
