/**
 * A tool whose validation hands it the very object the `tool_call` carried (a JSON Schema tool, a Standard Schema
 * that returns its input) may add to or change that object. The call's trace still records the arguments as the
 * model sent them, and a re-delivery of the call is compared with them as first received
 * (src/client/held-arguments.ts `receivedArguments`).
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { describe, expect, it } from 'vitest';
import { callTraces } from '../../src/client/tracing';
import { tool } from '../../src/index';
import type { Logger } from '../../src/logger';
import { silentLogger } from '../../src/logger';
import { argumentsTracer, nextTask, recording, results } from './call-runner-harness';

const schema = {
  type: 'object',
  properties: { q: { type: 'string' }, limit: { type: 'number' } },
  required: ['q'],
} as const;

/** A JSON Schema tool that adds `rows` to its input and changes `q`: at once, or after `waitFor` (then `ok`). */
function growsInput(waitFor?: Promise<void>) {
  const grow = (input: Record<string, unknown>) => {
    input.rows = [{ secret: 'added by the tool' }];
    input.q = 'changed';
  };
  return tool({
    name: 'grows',
    description: 'Grows its input.',
    parameters: schema,
    execute: async (input: Record<string, unknown>) => {
      if (waitFor === undefined) grow(input);
      else {
        await waitFor;
        grow(input);
      }
      return 'ok';
    },
  });
}

/** A Standard Schema (with Standard JSON Schema) that hands its input back as it is. */
const passThrough = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
    jsonSchema: { input: () => schema, output: () => schema },
  },
} as unknown as StandardSchemaV1<Record<string, unknown>>;

function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open: () => open() };
}

/** A logger keeping its `warn` lines' messages. */
function warnings() {
  const warned: string[] = [];
  const logger: Logger = { ...silentLogger, warn: (_object, message) => warned.push(message) };
  return { logger, warned };
}

const sent = { q: 'orders', limit: 3 };

describe('the trace of a call whose tool changes its input', () => {
  it.each([
    ['before an await', undefined],
    ['after an await', 'waits'],
  ])('records the arguments as the model sent them (%s)', async (_when, waits) => {
    const { tracing, recorded } = argumentsTracer();
    const released = gate();
    const grows = growsInput(waits === undefined ? undefined : released.opened);
    const runner = recording([grows], { tracing, callTraces });
    runner.calls.receive({
      type: 'tool_call',
      callId: 'g1',
      runId: 'r1',
      toolName: 'grows',
      arguments: { ...sent },
    });
    released.open();
    await nextTask();
    expect(results(runner.sent)).toEqual(['g1:ok']);
    expect(recorded).toEqual([sent]);
  });

  it('records large arguments as sent too', async () => {
    const { tracing, recorded } = argumentsTracer();
    const large = { q: 'x'.repeat(1_000), limit: 1 };
    const runner = recording([growsInput()], { tracing, callTraces });
    runner.calls.receive({
      type: 'tool_call',
      callId: 'g1',
      runId: 'r1',
      toolName: 'grows',
      arguments: { ...large },
    });
    await nextTask();
    expect(recorded).toEqual([large]);
  });

  it('records them as sent for a Standard Schema that returns its input', async () => {
    const { tracing, recorded } = argumentsTracer();
    const same = tool({
      name: 'same',
      description: 'Grows its input.',
      parameters: passThrough,
      execute: (input: Record<string, unknown>) => {
        input.added = true;
        return 'ok';
      },
    });
    const runner = recording([same], { tracing, callTraces });
    runner.calls.receive({
      type: 'tool_call',
      callId: 's1',
      runId: 'r1',
      toolName: 'same',
      arguments: { ...sent },
    });
    await nextTask();
    expect(recorded).toEqual([sent]);
  });
});

describe('a re-delivery of a call whose tool changed its input', () => {
  it.each([
    ['untraced', false],
    ['traced', true],
  ])('with the same arguments, while it runs, is no warning (%s)', async (_kind, traced) => {
    const { logger, warned } = warnings();
    const released = gate();
    const runner = recording([growsInput(released.opened)], {
      logger,
      ...(traced ? { tracing: argumentsTracer().tracing, callTraces } : {}),
    });
    const frame = { type: 'tool_call', callId: 'g1', runId: 'r1', toolName: 'grows' } as const;
    runner.calls.receive({ ...frame, arguments: { ...sent } });
    // The tool has changed its input by the time the service sends the call again.
    released.open();
    await Promise.resolve();
    runner.calls.receive({ ...frame, arguments: { ...sent } });
    expect(warned).toEqual([]);
    // Other arguments are still told.
    runner.calls.receive({ ...frame, arguments: { q: 'other' } });
    expect(warned).toHaveLength(1);
    await nextTask();
    expect(results(runner.sent)).toEqual(['g1:ok']);
  });

  it('that changed it at once, with the same arguments, is no warning', async () => {
    const { logger, warned } = warnings();
    const released = gate();
    const grows = tool({
      name: 'grows',
      description: 'Grows its input, then waits.',
      parameters: schema,
      execute: async (input: Record<string, unknown>) => {
        input.q = 'changed';
        await released.opened;
        return 'ok';
      },
    });
    const runner = recording([grows], { logger });
    const frame = { type: 'tool_call', callId: 'g1', runId: 'r1', toolName: 'grows' } as const;
    runner.calls.receive({ ...frame, arguments: { ...sent } });
    runner.calls.receive({ ...frame, arguments: { ...sent } });
    expect(warned).toEqual([]);
    released.open();
    await nextTask();
    // Its result waits for its ack: a re-delivery now is compared with what came first too.
    runner.calls.receive({ ...frame, arguments: { ...sent } });
    expect(warned).toEqual([]);
    expect(results(runner.sent)).toEqual(['g1:ok', 'g1:ok']);
  });

  it('with the same large arguments, in a client that traces, is no warning', async () => {
    const { logger, warned } = warnings();
    const released = gate();
    const runner = recording([growsInput(released.opened)], {
      logger,
      tracing: argumentsTracer().tracing,
      callTraces,
    });
    const large = { q: 'x'.repeat(1_000), limit: 1 };
    const frame = { type: 'tool_call', callId: 'g1', runId: 'r1', toolName: 'grows' } as const;
    runner.calls.receive({ ...frame, arguments: { ...large } });
    released.open();
    await Promise.resolve();
    runner.calls.receive({ ...frame, arguments: { ...large } });
    expect(warned).toEqual([]);
    runner.calls.receive({ ...frame, arguments: { ...large, limit: 2 } });
    expect(warned).toHaveLength(1);
    await nextTask();
    expect(results(runner.sent)).toEqual(['g1:ok']);
  });
});

describe('arguments without a field', () => {
  it('are recorded as {} whether the tool grows them before or after it waits', async () => {
    const { tracing, recorded } = argumentsTracer();
    const released = gate();
    const after = tool({
      name: 'after',
      description: 'Grows its input after a wait.',
      parameters: { type: 'object', properties: { q: { type: 'string' } } },
      execute: async (input: Record<string, unknown>) => {
        await released.opened;
        input.rows = [1];
        return 'ok';
      },
    });
    const loose = tool({
      name: 'grows',
      description: 'Grows its input at once.',
      parameters: { type: 'object', properties: { q: { type: 'string' } } },
      execute: (input: Record<string, unknown>) => {
        input.rows = [1];
        return 'ok';
      },
    });
    const runner = recording([loose, after], { tracing, callTraces });
    runner.calls.receive({ type: 'tool_call', callId: 'b1', runId: 'r1', toolName: 'grows', arguments: {} });
    runner.calls.receive({ type: 'tool_call', callId: 'a1', runId: 'r1', toolName: 'after', arguments: {} });
    released.open();
    await nextTask();
    expect(results(runner.sent)).toEqual(['b1:ok', 'a1:ok']);
    expect(recorded).toEqual([{}, {}]);
  });
});
