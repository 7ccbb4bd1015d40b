import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const child = fileURLToPath(new URL('./fixtures/last-calls-child.ts', import.meta.url));

describe('the call frames the decoder keeps for V8', () => {
  it('are let go by forgetLastCalls, which a client calls when it closes: no arguments outlive it', () => {
    const run = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', child], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    // Kept while calls may come (the hidden classes of the service's frames), gone once forgotten.
    expect(JSON.parse(run.stdout)).toEqual({ kept: true, afterForget: false });
  });
});
