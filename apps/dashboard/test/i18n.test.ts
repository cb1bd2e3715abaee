import t from 'tap';
import { en } from '../src/i18n/en.js';
import { ja } from '../src/i18n/ja.js';

// Every message in both languages: a key missing from either catalogue fails here (and in tsc).
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();
const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]/;

t.test('ja and en have exactly the same keys', async (t) => {
  const enKeys = Object.keys(en).sort();
  const jaKeys = Object.keys(ja).sort();
  t.same(
    enKeys.filter((key) => !jaKeys.includes(key)),
    [],
    'no key is missing from ja.ts',
  );
  t.same(
    jaKeys.filter((key) => !enKeys.includes(key)),
    [],
    'no key is missing from en.ts',
  );
});

t.test('each message is translated, with the same placeholders in both languages', async (t) => {
  const problems: string[] = [];
  for (const [key, english] of Object.entries(en) as [keyof typeof en, string][]) {
    const japanese = ja[key];
    if (!english.trim() || !japanese.trim()) problems.push(`${key}: empty`);
    if (placeholders(japanese).join() !== placeholders(english).join()) problems.push(`${key}: placeholders differ`);
    if (JAPANESE.test(english)) problems.push(`${key}: Japanese in en`);
  }
  t.same(problems, [], `${Object.keys(en).length} messages`);
});

t.test('a plural has its .other form', async (t) => {
  const orphans = Object.keys(en).filter((key) => key.endsWith('.one') && !(`${key.slice(0, -4)}.other` in en));
  t.same(orphans, []);
});
