/**
 * The keys an `apiKey` function returns are redacted wherever a key given as a string is (tool outputs and
 * errors, the frames that carry them, `tool_result` and `error` events, log lines, `ctx.logger`), in every
 * encoding the redactor covers, from the first key the function returns to the last, across a rotation and a key
 * function that then fails quoting the keys it returned before. Spans too (a recording tracer).
 */
import { describe, expect, it } from 'vitest';
import { Client, tool } from '../../src/index';
import { REDACTED } from '../../src/redact';
import { recordingLogger } from '../support/recording-logger';
import { recordingTracer } from '../support/recording-tracer';
import { FAKE_URL, fakeWebSocket, useFakeService, welcome } from './fake-service';

const { service, clients } = useFakeService();

const ALPHA = 'key-alpha-1111';
const BRAVO = 'key-bravo-2222';

/** `key` as written, JSON-escaped twice, `\u`-escaped and percent-encoded (each keeps the key's tail as written). */
function forms(key: string): string {
  return [
    key,
    JSON.stringify(JSON.stringify(`"${key}"`)),
    `\\u006b${key.slice(1)}`,
    `%6B${key.slice(1)}`,
  ].join(' | ');
}

/** Fails when `captured`, written as JSON, holds either key in any of the forms above. */
function expectNoKey(captured: unknown): void {
  const text = JSON.stringify(captured);
  expect(text).not.toMatch(/alpha-1111|bravo-2222/);
}

describe('a Client whose apiKey is a function', () => {
  it('redacts every key the function returns, from the first, across a rotation and its failure', async () => {
    let current = ALPHA;
    let failing = false;
    const apiKey = () => {
      if (failing) throw new Error(`renewing ${forms(ALPHA)} and ${forms(BRAVO)} failed`);
      return current;
    };
    const echo = tool({
      name: 'echo',
      description: 'Says the key it should never say.',
      execute: (_input, ctx) => {
        ctx.logger.info({ key: current, nested: { forms: forms(current) } }, `logging ${forms(current)}`);
        return { said: forms(current), [current]: 1 };
      },
    });
    const leak = tool({
      name: 'leak',
      description: 'Throws with the key.',
      execute: () => {
        throw new Error(`refused: ${forms(current)}`);
      },
    });
    const { logger, lines } = recordingLogger();
    const { tracing, seen: spans } = recordingTracer();
    const client = new Client({
      url: FAKE_URL,
      WebSocket: fakeWebSocket(),
      apiKey,
      tools: [echo, leak],
      logger,
      tracing,
      reconnect: { initialDelayMs: 1, maxDelayMs: 1, maxAttempts: 3 },
    });
    clients.push(client);
    const events: unknown[] = [];
    client.on('tool_result', (info) => events.push(info));
    client.on('error', (error) => events.push({ message: error.message, cause: String(error.cause) }));

    const first = await service.connect(client);
    const calls = async (connection: typeof first, round: string) => {
      for (const name of ['echo', 'leak']) {
        const result = connection.next('tool_result');
        connection.send({
          type: 'tool_call',
          callId: `${name}-${round}`,
          runId: 'r1',
          toolName: name,
          arguments: {},
        });
        await result;
      }
    };
    await calls(first, '1');

    // The service revokes the key; the function gives the new one, which the client resumes with.
    current = BRAVO;
    const second = service.nextConnection();
    first.close(4001, 'API key revoked');
    const rotated = await second;
    expect(await rotated.next('hello')).toMatchObject({ sessionId: 's1' });
    rotated.send(welcome('s1', { resumed: true }));
    await calls(rotated, '2');

    // Revoked again; now the function fails, quoting both keys it returned.
    failing = true;
    const failed = new Promise<void>((resolve) => client.once('closed', () => resolve()));
    rotated.close(4001, 'API key revoked');
    await failed;

    const frames = [...first.frames, ...rotated.frames].map((frame) =>
      frame.type === 'hello' ? { ...frame, apiKey: undefined } : frame,
    );
    // Results not acknowledged are sent again on the resumed session: the last of each call is what counts.
    const results = new Map(
      frames.flatMap((frame) => (frame.type === 'tool_result' ? [[frame.callId, frame.output]] : [])),
    );
    expect([...results.keys()].sort()).toEqual(['echo-1', 'echo-2', 'leak-1', 'leak-2']);
    // Each form replaced where it is, the JSON escapes around the twice-escaped one kept.
    const said = [REDACTED, JSON.stringify(JSON.stringify(`"${REDACTED}"`)), REDACTED, REDACTED].join(' | ');
    expect(results.get('echo-1')).toBe(JSON.stringify({ said, [REDACTED]: 1 }));
    expect(results.get('echo-2')).toBe(JSON.stringify({ said, [REDACTED]: 1 }));
    expect(results.get('leak-2')).toBe(`Error running leak: refused: ${said}`);
    expectNoKey(frames);
    expectNoKey(events);
    expectNoKey(lines);
    expectNoKey(spans);
    expect(spans.filter((span) => (span as { output?: string }).output !== undefined)).toHaveLength(4);
    // The failure was reported, each time, with its cause scrubbed.
    const keyFailures = events.filter(
      (event) => (event as { message?: string }).message?.startsWith('the apiKey function threw') === true,
    );
    expect(keyFailures.length).toBeGreaterThan(0);
    expect(lines.some((line) => line.message.includes('logging'))).toBe(true);
  });

  it('redacts a short key it returns where it is a whole value, and warns once without the key', async () => {
    const { logger, lines } = recordingLogger();
    const whole = tool({ name: 'whole', description: 'd', execute: () => 'k9' });
    const words = tool({ name: 'words', description: 'd', execute: () => 'k9x stays' });
    const client = new Client({
      url: FAKE_URL,
      WebSocket: fakeWebSocket(),
      apiKey: async () => 'k9',
      tools: [whole, words],
      logger,
      reconnect: false,
    });
    clients.push(client);
    const connection = await service.connect(client);
    const outputs: string[] = [];
    for (const name of ['whole', 'words']) {
      const result = connection.next('tool_result');
      connection.send({ type: 'tool_call', callId: name, runId: 'r1', toolName: name, arguments: {} });
      outputs.push((await result).output);
    }
    expect(outputs).toEqual([REDACTED, 'k9x stays']);
    const warnings = lines.filter((line) => line.message.includes('shorter than 4 characters'));
    expect(warnings).toEqual([
      {
        level: 'warn',
        object: { length: 2 },
        message:
          'the apiKey function returned a key shorter than 4 characters: it is not searched for inside the texts tools return, log and throw, only replaced where it is a whole value; use a longer key in production',
      },
    ]);
  });
});
