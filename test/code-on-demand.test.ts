/**
 * `CodeOnDemand` (src/code-on-demand.ts) on its own: one load at a time, the code kept when it arrives, a failed load
 * forgotten, a waiter told of a wait and of its end, and the test seam that holds or fails a load by the code's name.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { CodeOnDemand, setCodeLoader } from '../src/code-on-demand';
import { ToolwireError } from '../src/errors';
import { controlLoads } from './helpers/code-loads';

/** Code named `what` whose import counts itself and gives `{ made: n }`, or fails while `failing`. */
function codeNamed(what: string) {
  const imports = { count: 0, failing: false };
  const code = new CodeOnDemand(what, async () => {
    imports.count += 1;
    if (imports.failing) throw new Error('the network is down');
    return { made: imports.count };
  });
  return { code, imports };
}

describe('CodeOnDemand', () => {
  it('shares one load among the needs that come while it runs, and keeps the code', async () => {
    const { code, imports } = codeNamed('test-shared');
    const [first, second] = await Promise.all([code.load(), code.load()]);
    expect(first).toBe(second);
    expect(code.code).toEqual({ made: 1 });
    await code.load();
    expect(imports.count).toBe(1);
  });

  it('loads nothing for code registered up front', async () => {
    const { code, imports } = codeNamed('test-registered');
    code.register({ made: 0 });
    await expect(code.load()).resolves.toEqual({ made: 0 });
    expect(imports.count).toBe(0);
  });

  it('fails a load with ToolwireError load_failed naming the code, and forgets it so the next need loads again', async () => {
    const { code, imports } = codeNamed('test-failing');
    imports.failing = true;
    const error = (await code.load().catch((thrown: unknown) => thrown)) as ToolwireError;
    expect(error).toBeInstanceOf(ToolwireError);
    expect({ code: error.code, message: error.message, cause: error.cause }).toEqual({
      code: 'load_failed',
      message: 'toolwire could not load its test-failing code: the network is down',
      cause: new Error('the network is down'),
    });
    expect(code.code).toBeUndefined();
    imports.failing = false;
    await expect(code.load()).resolves.toEqual({ made: 2 });
  });

  it("fails code that needs other code whose load failed with that code's own error, said once", async () => {
    const { code: needed, imports } = codeNamed('test-needed');
    imports.failing = true;
    const needing = new CodeOnDemand('test-needing', async () => ({ needed: await needed.load() }));
    const error = (await needing.load().catch((thrown: unknown) => thrown)) as ToolwireError;
    expect({ code: error.code, message: error.message }).toEqual({
      code: 'load_failed',
      message: 'toolwire could not load its test-needed code: the network is down',
    });
    expect(needing.code).toBeUndefined();
    imports.failing = false;
    await expect(needing.load()).resolves.toEqual({ needed: { made: 2 } });
  });

  it('lets a test hold a load until it arrives, or fail it, by the code name, the real import still used', async () => {
    const { code, imports } = codeNamed('test-seam');
    const loads = controlLoads(setCodeLoader, 'test-seam', { held: true, offline: true });
    onTestFinished(() => setCodeLoader('test-seam', undefined));
    const failed = code.load().catch((thrown: unknown) => (thrown as ToolwireError).message);
    await loads.imported;
    expect(code.code).toBeUndefined();
    loads.arrive();
    expect(await failed).toBe('toolwire could not load its test-seam code: the network is down');
    loads.offline = false;
    await expect(code.load()).resolves.toEqual({ made: 2 });
    expect({ begun: loads.begun, done: loads.done, imports: imports.count }).toEqual({
      begun: 2,
      done: 1,
      imports: 2,
    });
  });

  it('refuses to set the load of code no one made, naming the code there is', () => {
    expect(() => setCodeLoader('decisions', undefined)).toThrow(
      /^setCodeLoader\(\): no code is named decisions \(.*decision/,
    );
  });
});
