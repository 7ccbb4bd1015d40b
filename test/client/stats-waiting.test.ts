/**
 * `client.stats.waiting` counts the calls that wait for a person or a nested run, holding no slot: never a call
 * waiting for its concurrency key's turn (that one is `queued`), whether or not it held a slot before.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { scriptedModel, silentLogger, startStubServer } from '../../server-stub/index';
import { Client, tool } from '../../src/node';

const closing: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function serve(toolCalls: Array<{ name: string; arguments?: object }>, tools: string[]) {
  const service = await startStubServer({
    logger: silentLogger,
    agents: [{ name: 'w', instructions: 'x', tools }],
    model: scriptedModel([{ toolCalls }, { text: 'done' }]),
  });
  closing.push(() => service.close());
  return service;
}

describe('client.stats.waiting', () => {
  it.each([16, 1])(
    'leaves out calls waiting for their key, whether they held a slot (maxConcurrency %i)',
    async (maxConcurrency) => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const keyed = tool({
        name: 'keyed',
        description: 'One at a time per key.',
        parameters: z.object({ k: z.string() }),
        concurrency: { limit: 1, key: (input) => input.k },
        execute: async () => {
          await gate;
          return 'ok';
        },
      });
      const call = { name: 'keyed', arguments: { k: 'A' } };
      const service = await serve([call, call, call], ['keyed']);
      const client = new Client({ url: service.url, apiKey: 'key-1', tools: [keyed], maxConcurrency });
      closing.push(() => client.close({ drain: false }));
      await client.connect();
      const runId = service.runs.start('w', 'go');
      await vi.waitFor(() => expect(client.stats.tools?.keyed).toEqual({ running: 1, waiting: 2 }));
      expect(client.stats).toMatchObject({ running: 1, queued: 2, waiting: 0 });
      release();
      expect((await service.runs.waitFor(runId)).status).toBe('completed');
    },
  );

  it('counts a call waiting for its approval that began without a slot (every slot busy)', async () => {
    let approve!: (approved: boolean) => void;
    let done!: (value: string) => void;
    const slow = tool({
      name: 'slow',
      description: 'Holds the one slot.',
      execute: () => new Promise<string>((resolve) => (done = resolve)),
    });
    const keyed = tool({
      name: 'keyed',
      description: 'Needs a yes.',
      parameters: z.object({ k: z.string() }),
      needsApproval: () => true,
      concurrency: { limit: 1, key: (input) => input.k },
      execute: () => 'k',
    });
    const service = await serve(
      [{ name: 'slow' }, { name: 'keyed', arguments: { k: 'A' } }],
      ['slow', 'keyed'],
    );
    const client = new Client({
      url: service.url,
      apiKey: 'key-1',
      tools: [slow, keyed],
      maxConcurrency: 1,
      onApproval: () => new Promise<boolean>((resolve) => (approve = resolve)),
    });
    closing.push(() => client.close({ drain: false }));
    await client.connect();
    const runId = service.runs.start('w', 'go');
    await vi.waitFor(() => expect(approve).toBeDefined());
    expect(client.stats).toMatchObject({ running: 1, queued: 0, waiting: 1 });
    approve(true);
    await vi.waitFor(() => expect(client.stats).toMatchObject({ running: 1, queued: 1, waiting: 0 }));
    done('s');
    expect((await service.runs.waitFor(runId)).status).toBe('completed');
    expect(client.stats).toMatchObject({ running: 0, queued: 0, waiting: 0 });
  });
});
