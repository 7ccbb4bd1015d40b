/**
 * The mirror of test/wire/accept-what-protocol-says.test.ts: the stub accepts what docs/protocol/index.md says a
 * receiver accepts from a client (unknown fields, unknown feature and kind names, informative fields that are
 * wrong: src/wire/codec.ts), and a refusal names the call, run or request of the frame it refuses.
 */
import { describe, expect, it } from 'vitest';
import { API_KEY, onCleanup, stub } from '../fault/harness';
import { TestClient } from './test-client';

const tool = {
  name: 'quote',
  description: 'Gets a price.',
  parameters: { type: 'object', properties: {} },
  needsApproval: false,
};
const hello = { type: 'hello', protocol: 1, sdk: { name: 'raw', version: '1' }, tools: [tool] };

async function connect(fields: Record<string, unknown>) {
  const server = await stub();
  const peer = TestClient.open(server.url, { apiKey: API_KEY, hello: false });
  onCleanup(() => peer.close());
  await peer.opened();
  peer.sendRaw(JSON.stringify({ ...hello, ...fields }));
  return { server, peer, welcome: await peer.next('welcome') };
}

describe('hello: the stub welcomes, dropping what is informative (docs/protocol/index.md, docs/protocol/frames.md, docs/protocol/runs.md)', () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['an unknown field', { futureField: { a: 1 } }],
    [
      'unknown feature names, one of 100 characters, one not a string',
      { features: ['progress', 'x'.repeat(100), 7, 'teleport'] },
    ],
    [
      'unknown run_event kinds, one of 100 characters',
      { runEventKinds: ['text_delta', 'y'.repeat(100), 'thought'] },
    ],
    ['a sideEffect this version does not list', { tools: [{ ...tool, sideEffect: 'dangerous' }] }],
    ['an approvalReason over 1,000 characters', { tools: [{ ...tool, approvalReason: 'z'.repeat(1_500) }] }],
    ['a tool with an unknown field', { tools: [{ ...tool, icon: 'coin' }] }],
  ];
  it.each(cases)('%s: welcome, not 4003', async (_name, fields) => {
    const { peer, welcome } = await connect({ features: ['progress'], ...fields });
    expect(welcome.sessionId).toEqual(expect.any(String));
    if (Array.isArray(fields.features)) expect(welcome.features).toEqual(['progress']);
    peer.send({ type: 'ping', id: 'after' });
    await peer.next('pong');
    expect(peer.all('error')).toEqual([]);
  });
});

describe('after hello', () => {
  it.each([
    [
      'tool_result with durationMs -1 (informative)',
      { type: 'tool_result', callId: 'c9', status: 'ok', output: '', durationMs: -1 },
      'unknown_call',
    ],
    [
      'run_cancel with a reason that is a number',
      { type: 'run_cancel', runId: 'r9', reason: 5 },
      'unknown_run',
    ],
    [
      'tool_result with an unknown field',
      { type: 'tool_result', callId: 'c9', status: 'ok', output: '', extra: 1 },
      'unknown_call',
    ],
  ])('%s: used, not refused', async (_name, frame, code) => {
    const { peer } = await connect({});
    peer.sendRaw(JSON.stringify(frame));
    expect(await peer.next('error')).toMatchObject({ code });
  });

  it('a refused frame names its readable ids: tool_result with an unknown status names its callId', async () => {
    const { peer } = await connect({});
    peer.sendRaw(JSON.stringify({ type: 'tool_result', callId: 'c9', status: 'skipped', output: '' }));
    expect(await peer.next('error')).toMatchObject({ code: 'invalid_frame', callId: 'c9' });
    peer.sendRaw(JSON.stringify({ type: 'run_start', requestId: 'q1', agent: {}, input: 'x' }));
    expect(await peer.next('error')).toMatchObject({ code: 'invalid_frame', requestId: 'q1' });
  });

  it('an unknown frame type is answered unknown_type and the socket stays open', async () => {
    const { peer } = await connect({});
    peer.sendRaw(JSON.stringify({ type: 'teleport' }));
    expect(await peer.next('error')).toMatchObject({ code: 'unknown_type' });
    peer.send({ type: 'ping', id: 'after' });
    await peer.next('pong');
  });
});
