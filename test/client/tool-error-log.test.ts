/**
 * A tool's stack trace reaches the developer: with a client `logger`, the `warn` line of a failed call carries
 * what was thrown (stack, cause chain, code), redacted; the model still reads only the message.
 */
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../src/call/registry';
import { CallRunner } from '../../src/client/calls';
import { type Logger, Redactor, redactingLogger } from '../../src/logger';
import { tool } from '../../src/tool/tool';
import type { ClientFrame } from '../../src/wire/protocol';

type Line = { level: string; object: Record<string, unknown>; message: string };

function runner(execute: () => unknown, contextFor: () => unknown = () => undefined) {
  const lines: Line[] = [];
  const at =
    (level: string) =>
    (object: Record<string, unknown>, message: string): void => {
      lines.push({ level, object, message });
    };
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  const redactor = new Redactor(['db-password-123']);
  const sent: ClientFrame[] = [];
  const failing = tool({ name: 'load_order', description: 'Loads an order.', execute });
  const calls = new CallRunner({
    registry: new ToolRegistry([failing]),
    maxConcurrency: 4,
    maxQueue: 10,
    highWaterMarkBytes: 1_048_576,
    socket: {
      send: (frame) => {
        sent.push(frame);
        return true;
      },
      writable: true,
      bufferedAmount: 0,
      maxPayloadBytes: 1_048_576,
    },
    contextFor,
    onApproval: undefined,
    extend: {},
    redactor,
    logger: redactingLogger(logger, redactor),
    events: { toolCall() {}, toolResult() {}, approvalRequested() {}, widgetInvalid() {} },
  });
  return { calls, lines, sent };
}

function loadOrderFromDatabase(): never {
  throw new Error('Could not load the order', {
    cause: Object.assign(new Error('connect ECONNREFUSED (password db-password-123)'), {
      code: 'ECONNREFUSED',
    }),
  });
}

describe('a tool that throws', () => {
  it('logs its stack, cause and code at warn, redacted, while the model reads only the message', () => {
    const { calls, lines, sent } = runner(() => loadOrderFromDatabase());
    calls.receive({ type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'load_order', arguments: {} });
    expect(sent).toEqual([
      expect.objectContaining({ output: 'Error running load_order: Could not load the order' }),
    ]);
    const warned = lines.filter((line) => line.level === 'warn');
    expect(warned).toHaveLength(1);
    const line = warned[0] as Line;
    expect(line.message).toBe('Error running load_order: Could not load the order');
    const error = line.object.error as {
      name: string;
      message: string;
      stack: string;
      cause: Record<string, unknown>;
    };
    expect(error).toMatchObject({ name: 'Error', message: 'Could not load the order' });
    expect(error.stack).toContain('loadOrderFromDatabase');
    expect(error.cause).toMatchObject({
      message: 'connect ECONNREFUSED (password [redacted])',
      code: 'ECONNREFUSED',
    });
    expect(JSON.stringify(lines)).not.toContain('db-password-123');
    expect(JSON.stringify(sent)).not.toContain('ECONNREFUSED');
  });

  it('logs what a failing context function threw, with the call’s result', async () => {
    const { calls, lines } = runner(
      () => 'never runs',
      () => Promise.reject(new TypeError('tenant lookup failed')),
    );
    calls.receive({ type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'load_order', arguments: {} });
    await new Promise((resolve) => setImmediate(resolve));
    const warned = lines.filter((line) => line.level === 'warn');
    expect(warned.map((line) => (line.object.error as { name?: string } | undefined)?.name)).toEqual([
      'TypeError',
    ]);
  });
});
