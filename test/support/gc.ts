/**
 * `collectGarbage()`: a full garbage collection in this process, for tests that check what a call leaves
 * reachable (a `WeakRef` to it is cleared once nothing holds it). Node exposes `gc` only with `--expose-gc`;
 * the flag is set at run time and the function read from a fresh context.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Collects garbage until `ref` is cleared or `rounds` passes have run; returns whether it was cleared. */
export async function collected(ref: WeakRef<object>, rounds = 10): Promise<boolean> {
  for (let round = 0; round < rounds; round += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    if (ref.deref() === undefined) return true;
  }
  return false;
}

/** Collects garbage until every ref of `refs` is cleared or `rounds` passes have run; returns whether all were. */
export async function collectedAll(refs: readonly WeakRef<object>[], rounds = 10): Promise<boolean> {
  for (let round = 0; round < rounds; round += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    if (refs.every((ref) => ref.deref() === undefined)) return true;
  }
  return false;
}
