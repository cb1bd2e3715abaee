import { readFileSync } from 'node:fs';
import t from 'tap';

const manifest = (path: string) =>
  JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { engines?: { node?: string } };

t.test("the client declares the Node versions the service supports (the root's engines)", async (t) => {
  const root = manifest('../../../package.json').engines?.node;
  t.ok(root, 'the root declares its Node versions');
  t.equal(manifest('../package.json').engines?.node, root);
});
