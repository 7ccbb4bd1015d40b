/**
 * A tool with keyed concurrency (`concurrency: { limit, key: tenant }`) for tests of the gate: each call records
 * `<tenant><n>` when `execute` starts and ends only when the test releases it.
 */
import { z } from 'zod';
import { concurrencyStats } from '../../src/call/concurrency';
import { tool } from '../../src/index';
import { toolInternals } from '../../src/tool/tool';

/**
 * A keyed tool whose calls record when they start and end only when released, in start order. `needsApproval`:
 * which calls need approval, by their `n`.
 */
export function keyedTool(limit: number, needsApproval?: (n: number) => boolean) {
  const started: string[] = [];
  const releases = new Map<string, () => void>();
  const work = tool({
    name: 'work',
    description: 'Work for a tenant.',
    parameters: z.object({ tenant: z.string(), n: z.number().int() }),
    needsApproval: needsApproval === undefined ? false : (_ctx, { n }) => needsApproval(n),
    concurrency: { limit, key: (input) => input.tenant },
    execute: ({ tenant, n }) =>
      new Promise<string>((resolve) => {
        started.push(`${tenant}${n}`);
        releases.set(`${tenant}${n}`, () => resolve(`${tenant}${n}`));
      }),
  });
  const stats = () => concurrencyStats(toolInternals(work)?.concurrency as never);
  const release = (id: string) => {
    const done = releases.get(id);
    if (done === undefined) throw new Error(`${id} is not running`);
    releases.delete(id);
    done();
  };
  return { work, started, stats, release };
}
