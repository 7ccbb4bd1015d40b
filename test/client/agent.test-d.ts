import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { Agent, type Client, type RunResult, type ToolwireError } from '../../src/index';

declare const client: Client;

describe('run() result types', () => {
  it('types finalOutput as a string without outputType', () => {
    const agent = new Agent({ name: 'A', instructions: '' });
    expectTypeOf(client.run(agent, 'x')).resolves.toEqualTypeOf<RunResult<string>>();
  });

  it('types finalOutput as the parsed outputType (the output side of a transform)', () => {
    const agent = new Agent({
      name: 'A',
      instructions: '',
      outputType: z.object({ n: z.string().transform(Number) }),
    });
    expectTypeOf(client.run(agent, 'x')).resolves.toEqualTypeOf<RunResult<{ n: number }>>();
  });

  it('types finalOutput from a JSON Schema literal', () => {
    const agent = new Agent({
      name: 'A',
      instructions: '',
      outputType: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } as const,
    });
    expectTypeOf(client.run(agent, 'x')).resolves.toEqualTypeOf<
      RunResult<{ [x: string]: unknown; ok: boolean }>
    >();
  });
});

describe('client events', () => {
  it("types an error listener's argument as a ToolwireError, whose code a listener branches on", () => {
    client.on('error', (error) => {
      expectTypeOf(error).toEqualTypeOf<ToolwireError>();
      expectTypeOf(error.code).toBeString();
    });
  });
});
