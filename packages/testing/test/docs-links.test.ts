import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import t from 'tap';

// Every relative link of the user docs (README.md, docs/, each package's and app's README) must
// resolve to a file of the repository, and a `#fragment` into a Markdown file to one of its headings.
const root = resolve(import.meta.dirname, '../../..');

function markdownFiles(): string[] {
  const files = [join(root, 'README.md')];
  const docs = join(root, 'docs');
  for (const entry of readdirSync(docs)) if (entry.endsWith('.md')) files.push(join(docs, entry));
  for (const group of ['apps', 'packages']) {
    for (const name of readdirSync(join(root, group))) {
      const readme = join(root, group, name, 'README.md');
      if (existsSync(readme)) files.push(readme);
    }
  }
  return files;
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, '')
    .replace(/ /g, '-');

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const anchors = new Set<string>();
  for (const match of text.matchAll(/^#{1,6} (.+)$/gm)) anchors.add(slug((match[1] ?? '').replace(/`/g, '')));
  return anchors;
}

t.test('every relative link in the docs resolves', async (t) => {
  const files = markdownFiles();
  t.ok(files.length >= 10, `${files.length} Markdown files checked`);
  const broken: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
    for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      const [path = '', fragment] = target.split('#');
      const resolved = path === '' ? file : resolve(dirname(file), decodeURI(path));
      const where = `${relative(root, file)} → ${target}`;
      if (!resolved.startsWith(root) || !existsSync(resolved)) {
        broken.push(`${where} (no such file)`);
        continue;
      }
      if (fragment && statSync(resolved).isFile() && resolved.endsWith('.md') && !anchorsOf(resolved).has(fragment)) {
        broken.push(`${where} (no such heading)`);
      }
    }
  }
  t.strictSame(broken, [], 'broken links');
});

t.test('the README stays a front door', async (t) => {
  const lines = readFileSync(join(root, 'README.md'), 'utf8').split('\n').length;
  t.ok(lines <= 300, `README.md has ${lines} lines (at most ~300)`);
});
