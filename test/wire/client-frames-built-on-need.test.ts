/**
 * The schemas of the frames a client sends (src/wire/protocol.ts `clientFrames`) are the service's to decode with: a
 * client process, which only encodes those frames, never builds them (importing toolwire, connecting, answering a
 * call), and the first `clientFrames()` (the stub's first decode) builds them once. Of the rest, a worker that
 * connects and answers calls builds its `welcome`'s schema alone: no frame union, no other service frame's schema,
 * no widget schema, no run event's (issue 28). Seen through zod's `discriminatedUnion` (every frame union, the
 * widget and the content parts), `object` (each frame's schema, by its literal `type`) and `catch` (the run events'
 * optional fields): the module graph is loaded afresh over a zod/mini that records what each made.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type MemoryPeer, memorySocketPair, welcomeFrame } from '../helpers/memory-socket';
import { SERVICE_FRAME_TYPES } from './frame-types';

/** The options of each discriminated union made since the module graph was loaded afresh (read once all is loaded). */
const made = vi.hoisted(() => ({ unions: [] as unknown[][], objects: [] as unknown[], catches: 0 }));

vi.mock('zod/mini', async (importOriginal) => {
  const zod = await importOriginal<typeof import('zod/mini')>();
  const discriminatedUnion = ((...args: Parameters<typeof zod.discriminatedUnion>) => {
    const union = zod.discriminatedUnion(...args);
    made.unions.push([...args[1]]);
    return union;
  }) as typeof zod.discriminatedUnion;
  const object = ((...args: Parameters<typeof zod.object>) => {
    const schema = zod.object(...args);
    made.objects.push(schema);
    return schema;
  }) as typeof zod.object;
  const catchSchema = ((...args: Parameters<typeof zod.catch>) => {
    made.catches++;
    return zod.catch(...args);
  }) as typeof zod.catch;
  return { ...zod, discriminatedUnion, object, catch: catchSchema };
});

afterEach(() => {
  vi.resetModules();
});

/** The literal `type` of a frame's schema; `?` for an option that is no object. */
function typeOf(option: unknown): string {
  const def = (option as { _zod?: { def?: { type?: string; shape?: unknown } } })._zod?.def;
  if (def?.type !== 'object') return '?';
  const type = Object.getOwnPropertyDescriptor(def.shape, 'type')?.value as
    | { _zod?: { def?: { values?: unknown[] } } }
    | undefined;
  return String(type?._zod?.def?.values?.[0]);
}

/** Whether the union of the frames a client sends (the one with `hello`) was made. */
const clientUnionMade = () => unionsWith('hello') > 0;

/** How many unions made have an option of frame type `type`. */
const unionsWith = (type: string) =>
  made.unions.filter((options) => options.map(typeOf).includes(type)).length;

/** The service's frame types whose object schemas were made, in order. */
const serviceFramesMade = () =>
  made.objects.map(typeOf).filter((type) => (SERVICE_FRAME_TYPES as readonly string[]).includes(type));

/** Imports toolwire afresh, connects a client over an in-memory socket and has it answer one call. */
async function connectAndCall() {
  const core = await import('../../src/node');
  const afterImport = { unions: made.unions.length, frames: serviceFramesMade(), catches: made.catches };
  let peer: MemoryPeer | undefined;
  const results: string[] = [];
  const pair = memorySocketPair({
    onConnection(connected: MemoryPeer) {
      peer = connected;
      connected.onMessage = (text) => {
        const frame = JSON.parse(text) as { type: string; output?: string };
        if (frame.type === 'hello') connected.send(welcomeFrame());
        else if (frame.type === 'tool_result') results.push(frame.output ?? '');
      };
    },
  });
  const ping = core.tool({ name: 'ping', description: 'Pong.', execute: () => 'pong' });
  const client = new core.Client({
    url: 'ws://s',
    apiKey: 'key-1',
    WebSocket: pair.WebSocket,
    tools: [ping],
  });
  await client.connect();
  peer!.send({ type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'ping', arguments: {} });
  peer!.send({ type: 'ack', callId: 'c1' });
  await vi.waitFor(() => expect(results).toEqual(['pong']));
  await client.close({ drain: false });
  return afterImport;
}

describe('the schemas a worker builds', () => {
  it("are its welcome's alone: no frame union, no other frame's, no widget's, no run event's", async () => {
    vi.resetModules();
    made.unions = [];
    made.objects = [];
    made.catches = 0;
    expect(await connectAndCall()).toEqual({ unions: 0, frames: [], catches: 0 });
    expect(made.unions).toEqual([]);
    expect(serviceFramesMade()).toEqual(['welcome']);
    expect(made.catches).toBe(0);

    // Each at its first need, once, and as strict as ever.
    const { validateWidget } = await import('../../src/tool/widget');
    expect(validateWidget({ type: 'Badge', label: 'shipped', color: 'pink' })).toEqual({
      ok: false,
      path: 'color',
      message: 'expected one of "neutral", "success", "warning", "danger", "info"',
    });
    expect(validateWidget({ type: 'Card', children: [{ type: 'Text' }] })).toEqual({
      ok: false,
      path: 'children[0].value',
      message: 'expected string',
    });
    expect(validateWidget({ type: 'Text', value: 'ok' })).toEqual({
      ok: true,
      widget: { type: 'Text', value: 'ok' },
    });
    expect(unionsWith('Card')).toBe(1);

    const { toRunEvent } = await import('../../src/client/run-events');
    const progress = (data: unknown) =>
      toRunEvent({ type: 'run_event', runId: 'r1', seq: 1, event: { kind: 'tool_progress', data } });
    expect(progress({ callId: 'c1', toolName: 'ping', progress: 'half' })).toEqual({
      // zod's own text after it when a zod locale is loaded (the full `zod` sets one).
      malformed: expect.stringMatching(/^progress: Invalid input/),
    });
    const catches = made.catches;
    expect(catches).toBeGreaterThan(0);
    expect(progress({ callId: 'c1', toolName: 'ping', progress: 1, total: 'two' })).toEqual({
      kind: 'tool_progress',
      runId: 'r1',
      seq: 1,
      callId: 'c1',
      toolName: 'ping',
      progress: 1,
    });
    expect(made.catches).toBe(catches);
  });
});

describe('the schemas of the frames a client sends', () => {
  it('are not built by a client that connects and answers a call, and are built once by clientFrames()', async () => {
    vi.resetModules();
    made.unions = [];
    await connectAndCall();
    expect(clientUnionMade()).toBe(false);

    const { clientFrames } = await import('../../src/wire/protocol');
    const first = clientFrames();
    expect(clientUnionMade()).toBe(true);
    expect(clientFrames()).toBe(first);
    expect(unionsWith('hello')).toBe(1);
  });
});
