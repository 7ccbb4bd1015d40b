/**
 * The loads of code a browser page loads with `import()` (a `CodeOnDemand`, src/code-on-demand.ts: a call part, the
 * client's runs, decisions, socket questions, tracing), as a test sets them through the code's own seam
 * (`setCodeLoader`), with no module mocked.
 */
import type * as OnDemand from '../../src/code-on-demand';

/** The loads of one code, as {@link controlLoads} runs them; live. */
export interface CodeLoads {
  /** Loads begun. */
  begun: number;
  /** Loads that gave the code. */
  done: number;
  /** While `true`, a load fails as a page offline does ("the network is down"), once it arrives. */
  offline: boolean;
  /** Lets the loads held arrive (when made with `held`); later loads then arrive at once. */
  arrive(): void;
  /**
   * Resolves once the first load's real import is done: from then on arriving takes microtasks only (what a
   * test on fake timers needs).
   */
  imported: Promise<void>;
}

/**
 * Sets how the code named `name` loads (`setCodeLoader` of the module graph under test: after
 * `vi.resetModules()`, the one imported afresh): each load imports the real code, then waits until `arrive()`
 * when `held`, then fails while `offline`, else gives the code. Undone by `setCodeLoader(name, undefined)`, or
 * with the module graph.
 */
export function controlLoads(
  setCodeLoader: typeof OnDemand.setCodeLoader,
  name: string,
  options: { held?: boolean; offline?: boolean } = {},
): CodeLoads {
  let arrive: () => void = () => {};
  const arrived =
    options.held === true
      ? new Promise<void>((resolve) => {
          arrive = resolve;
        })
      : Promise.resolve();
  let imported: () => void = () => {};
  const loads: CodeLoads = {
    begun: 0,
    done: 0,
    offline: options.offline ?? false,
    arrive: () => arrive(),
    imported: new Promise<void>((resolve) => {
      imported = resolve;
    }),
  };
  setCodeLoader(name, async (importCode) => {
    loads.begun += 1;
    const code = await importCode();
    imported();
    await arrived;
    if (loads.offline) throw new Error('the network is down');
    loads.done += 1;
    return code;
  });
  return loads;
}
