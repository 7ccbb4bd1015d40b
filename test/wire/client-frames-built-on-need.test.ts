/**
 * The schemas of the frames a client sends (src/wire/protocol.ts `clientFrames`) are the service's to decode with: a
 * client process, which only encodes those frames, never builds them (importing toolwire, connecting, answering a
 * call), and the first `clientFrames()` (the stub's first decode) builds them once. Seen through zod's
 * `discriminatedUnion`, which every frame union is made with: the module graph is loaded afresh over a zod/mini
 * that records the frame types of each union made.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type MemoryPeer, memorySocketPair, welcomeFrame } from '../helpers/memory-socket';

/** The options of each discriminated union made since the module graph was loaded afresh (read once all is loaded). */
const made = vi.hoisted(() => ({ unions: [] as unknown[][] }));

vi.mock('zod/mini', async (importOriginal) => {
  const zod = await importOriginal<typeof import('zod/mini')>();
  const discriminatedUnion = ((...args: Parameters<typeof zod.discriminatedUnion>) => {
    const union = zod.discriminatedUnion(...args);
    made.unions.push([...args[1]]);
    return union;
  }) as typeof zod.discriminatedUnion;
  return { ...zod, discriminatedUnion };
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

describe('the schemas of the frames a client sends', () => {
  it('are not built by a client that connects and answers a call, and are built once by clientFrames()', async () => {
    vi.resetModules();
    made.unions = [];
    const core = await import('../../src/node');
    expect(unionsWith('welcome')).toBe(1);
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
    await vi.waitFor(() => expect(results).toEqual(['pong']));
    await client.close({ drain: false });
    expect(clientUnionMade()).toBe(false);

    const { clientFrames } = await import('../../src/wire/protocol');
    const first = clientFrames();
    expect(clientUnionMade()).toBe(true);
    expect(clientFrames()).toBe(first);
    expect(unionsWith('hello')).toBe(1);
  });
});
