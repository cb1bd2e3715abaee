import { measureMemory } from 'node:vm';

let collecting = false;

/**
 * Asks V8 for a full collection now, once a request is done with what an import parsed and built.
 *
 * An import holds its parsed body, the checked entries and the statements' parameters across round
 * trips to the database, so nearly all of it is promoted to the old generation, and it is garbage
 * when the answer is sent. V8 lets the API's old generation (its limit is far above what it holds)
 * grow to several times what it held after its last full collection before collecting it again,
 * so a file sent as a run of imports left the process holding the garbage of many of them. An
 * eager `measureMemory` is the one way Node offers to start a full collection without
 * `--expose-gc` (its measurement itself is not used; being experimental, it prints one
 * ExperimentalWarning the first time). Imports arriving together share one collection.
 */
export function collectImportGarbage(): void {
  if (collecting) return;
  collecting = true;
  // A failure loses only the timing of a collection V8 makes anyway.
  const done = () => {
    collecting = false;
  };
  measureMemory({ execution: 'eager' }).then(done, done);
}
