/**
 * A run's streamed text as the application gets it (docs/guide/secrets.md): a secret the model's stream splits
 * across `text_delta` events reaches no event, in `onEvent` and `client.on('run_event')` alike; the text held
 * back goes out at the end of the turn, of the run, or of the socket, so the deltas put together are the turn's
 * text redacted whole.
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/client/run-events';
import { MAX_HELD_CHARS, TextDeltas } from '../../src/client/text-deltas';
import { Agent, Client } from '../../src/index';
import { clientRedactor } from '../../src/redact';
import { FAKE_URL, type FakeConnection, fakeWebSocket, useFakeService } from './fake-service';

const KEY = 'sk-live-4242';
const RULE = 'hunter2x';

/** What `deltas` of one turn are handed out as: each event's delta, then what the turn's end lets go. */
function streamed(deltas: readonly string[]): string[] {
  const stream = new TextDeltas(clientRedactor(KEY, [RULE]));
  const out: string[] = [];
  for (const delta of deltas) {
    const { released, now } = stream.delta('r1', 1, delta);
    out.push(...released.map((held) => held.delta), now);
  }
  const end = stream.end('r1');
  if (end !== undefined) out.push(end.delta);
  return out;
}

describe('a run’s text deltas, redacted as one stream', () => {
  it('hold back the start of an API key split in two until the delta that completes it', () => {
    expect(streamed(['key: sk-li', 've-4242, ok'])).toEqual(['key: ', '[redacted], ok']);
  });

  it('hold a redact string split in three across three deltas', () => {
    expect(streamed(['pass hun', 'ter', '2x now'])).toEqual(['pass ', '', '[redacted] now']);
  });

  it('hold a JSON-escaped key split inside its escape', () => {
    expect(streamed(['{"k":"sk\\u00', '2dlive-4242"}'])).toEqual(['{"k":"', '[redacted]"}']);
    expect(streamed(['"\\\\\\"sk-live', '-4242\\\\\\""'])).toEqual(['"\\\\\\"', '[redacted]\\\\\\""']);
  });

  it('hold a key escaped then percent-encoded, split inside the encoded backslash', () => {
    const stream = new TextDeltas(clientRedactor('sk/live-4242', []));
    const deltas = ['u=sk%5', 'C%2Flive-4242&', 'v=sk%25', '5C%252Flive-4242&'];
    const out = deltas.map((delta) => stream.delta('r1', 1, delta).now);
    expect(out.join('') + (stream.end('r1')?.delta ?? '')).toBe('u=[redacted]&v=[redacted]&');
    expect(out[0]).toBe('u=');
  });

  it('hold a key percent-encoded twice, split inside an escape', () => {
    expect(streamed(['u=sk%252', 'Dlive-4242&'])).toEqual(['u=', '[redacted]&']);
    expect(streamed(['u=sk%25', '2Dlive%25', '2D4242&'])).toEqual(['u=', '', '[redacted]&']);
  });

  it('hold a key percent-encoded three times, split inside its %2525', () => {
    expect(streamed(['u=sk%2525', '2Dlive-4242&'])).toEqual(['u=', '[redacted]&']);
    expect(streamed(['u=sk%252', '52Dlive-4242&'])).toEqual(['u=', '[redacted]&']);
  });

  it('hold a key lowercased or uppercased, split in two', () => {
    const stream = new TextDeltas(clientRedactor('sk-Live-4242', []));
    const deltas = ['host sk-li', 've-4242.example ', 'KEY SK-LI', 'VE-4242.'];
    const out = deltas.map((delta) => stream.delta('r1', 1, delta).now);
    expect(out).toEqual(['host ', '[redacted].example ', 'KEY ', '[redacted].']);
  });

  it('release a false start unchanged with the next delta', () => {
    expect(streamed(['ask sk-l', 'ater'])).toEqual(['ask ', 'sk-later']);
  });

  it('let go of the held text, redacted, when the turn ends', () => {
    expect(streamed(['the key is sk-live-42'])).toEqual(['the key is ', 'sk-live-42']);
    expect(streamed(['the key is hunter2'])).toEqual(['the key is ', 'hunter2']);
  });

  it('hold back no more than MAX_HELD_CHARS characters', () => {
    const endless = `sk\\u{${'0'.repeat(MAX_HELD_CHARS)}`;
    expect(streamed(['say ', endless, '2d}'])).toEqual(['say ', endless, '2d}']);
  });

  it('hand out, put together, the turn’s text redacted whole', () => {
    const text = `a ${KEY} b "${JSON.stringify(RULE).slice(1, -1)}" c sk%2Dlive-4242 d`;
    const redactor = clientRedactor(KEY, [RULE]);
    for (let cut = 0; cut <= text.length; cut++) {
      const out = streamed([text.slice(0, cut), text.slice(cut)]);
      expect(out.join('')).toBe(redactor.text(text));
      for (const piece of out) expect(redactor.text(piece)).toBe(piece);
    }
  });
});

const { service, clients } = useFakeService();
const agent = new Agent({ name: 'A', instructions: '' });

async function started(onEvent: (event: RunEvent) => void) {
  const client = new Client({
    url: FAKE_URL,
    WebSocket: fakeWebSocket(),
    apiKey: KEY,
    tools: [],
    reconnect: false,
  });
  clients.push(client);
  const connection = await service.connect(client);
  const start = connection.next('run_start');
  const run = client.run(agent, 'go', { onEvent });
  const { requestId } = await start;
  connection.send({ type: 'run_started', requestId, runId: 'r1' });
  return { client, connection, run };
}

const delta = (connection: FakeConnection, text: string) =>
  connection.send({
    type: 'run_event',
    runId: 'r1',
    event: { kind: 'text_delta', data: { turn: 1, delta: text } },
  });

describe('a run’s text_delta events', () => {
  it('never carry part of a key the stream split, for onEvent and run_event, held text let go at the message', async () => {
    const fromRun: RunEvent[] = [];
    const { client, connection, run } = await started((event) => fromRun.push(event));
    const fromClient: RunEvent[] = [];
    client.on('run_event', (event) => fromClient.push(event));
    delta(connection, 'key: sk-li');
    delta(connection, 've-4242 and sk-');
    connection.send({
      type: 'run_event',
      runId: 'r1',
      seq: 1,
      event: { kind: 'message', data: { role: 'assistant', content: `key: ${KEY} and sk-` } },
    });
    connection.send({
      type: 'run_result',
      runId: 'r1',
      status: 'completed',
      finalOutput: 'ok',
      toolCalls: [],
      turns: 1,
    });
    await run;
    const shown = fromRun.map((event) => (event.kind === 'text_delta' ? event.delta : event.kind));
    expect(shown).toEqual(['key: ', '[redacted] and ', 'sk-', 'message']);
    expect(fromClient).toEqual(fromRun);
  });

  it('let go of the held text when the run ends or the socket drops', async () => {
    const seen: RunEvent[] = [];
    const { connection, run } = await started((event) => seen.push(event));
    delta(connection, 'almost sk-live');
    await expect.poll(() => seen.length).toBe(1);
    connection.close(4000, 'gone');
    await expect(run).rejects.toThrow();
    expect(seen).toEqual([
      { kind: 'text_delta', runId: 'r1', turn: 1, delta: 'almost ' },
      { kind: 'text_delta', runId: 'r1', turn: 1, delta: 'sk-live' },
    ]);
  });
});
