import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { Session } from '../../server-stub/session';
import { PROTOCOL_DEFAULTS, type ServiceFrame } from '../../src/wire/protocol';

/** A session on a socket that records what is written to it. */
function attached() {
  const written: ServiceFrame[] = [];
  const socket = {
    OPEN: 1,
    readyState: 1,
    bufferedAmount: 0,
    send: (text: string) => written.push(JSON.parse(text) as ServiceFrame),
  };
  const made = new Session('s1', 1, undefined, 1_048_576, () => {});
  made.socket = socket as unknown as WebSocket;
  return { session: made, written };
}

const call = (callId: string): ServiceFrame => ({ type: 'tool_call', callId, runId: 'r1', toolName: 'add' });
const nextTask = () => new Promise((resolve) => setImmediate(resolve));

describe('Session acks (docs/protocol/tool-calls.md)', () => {
  it('sends the acks of one task as one frame, after the task', async () => {
    const { session, written } = attached();
    session.ack('c1');
    session.ack('c2');
    session.ack('c3');
    expect(written).toEqual([]);
    await nextTask();
    expect(written).toEqual([{ type: 'ack', callIds: ['c1', 'c2', 'c3'] }]);
    session.ack('c4');
    await nextTask();
    expect(written.at(-1)).toEqual({ type: 'ack', callId: 'c4' });
  });

  it('lets pending acks ride on the next tool_call instead of a frame of their own', async () => {
    const { session, written } = attached();
    session.ack('c1');
    session.send(call('c2'));
    await nextTask();
    expect(written).toEqual([{ ...call('c2'), acks: ['c1'] }]);
  });

  it('writes pending acks before any other frame, so frames keep their order', async () => {
    const { session, written } = attached();
    session.ack('c1');
    session.send({ type: 'cancel', callId: 'c2', reason: 'deadline' });
    await nextTask();
    expect(written).toEqual([
      { type: 'ack', callId: 'c1' },
      { type: 'cancel', callId: 'c2', reason: 'deadline' },
    ]);
  });

  it(`never puts more than ${PROTOCOL_DEFAULTS.maxAcksPerFrame} ids in one frame`, async () => {
    const { session, written } = attached();
    const ids = Array.from({ length: PROTOCOL_DEFAULTS.maxAcksPerFrame + 1 }, (_, i) => `c${i}`);
    for (const id of ids) session.ack(id);
    await nextTask();
    expect(written).toEqual([
      { type: 'ack', callIds: ids.slice(0, -1) },
      { type: 'ack', callId: ids.at(-1) },
    ]);
  });
});
