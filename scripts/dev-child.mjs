// A process of `pnpm dev` (the API, the worker) started while the launcher still starts PostgreSQL
// and migrates, so that loading its modules, most of its start, overlaps with that. It loads the
// modules named after the entry meanwhile, then waits for the launcher's go (scripts/dev.mjs): a file
// holding what the environment still lacks (the embedded PostgreSQL's URL), written once the database
// is migrated. Only then does the entry run, and read its configuration. The file stays until the
// launcher ends, so a restart by `node --watch` goes straight through.
//
//   node --import tsx scripts/dev-child.mjs <entry> [module to load meanwhile …]
import { existsSync, readFileSync, watch } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [entry, ...meanwhile] = process.argv.slice(2);
if (!entry) throw new Error('usage: dev-child.mjs <entry> [module to load meanwhile …]');

/** Resolves once `file` exists, with the variables it holds (the launcher renames it into place whole). */
function launcherGo(file) {
  const read = () => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined);
  return new Promise((resolvePromise, reject) => {
    const watcher = watch(dirname(file), (_event, name) => {
      if (name !== null && name !== basename(file)) return;
      try {
        const variables = read();
        if (variables === undefined) return;
        watcher.close();
        resolvePromise(variables);
      } catch (error) {
        watcher.close();
        reject(error);
      }
    });
    const variables = read();
    if (variables !== undefined) {
      watcher.close();
      resolvePromise(variables);
    }
  });
}

const goFile = process.env.DEV_LAUNCHER_GO_FILE;
const [variables] = await Promise.all([
  goFile ? launcherGo(goFile) : {},
  ...meanwhile.map((module) => import(pathToFileURL(resolve(module)).href)),
]);
Object.assign(process.env, variables);
process.argv.splice(1, process.argv.length - 1, resolve(entry));
await import(pathToFileURL(resolve(entry)).href);
