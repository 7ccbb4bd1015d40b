/**
 * The service's words in the errors the client hands its caller (docs/protocol/limits.md): an `error` frame's
 * `code` and `message` and a failed run's `error` are redacted, then bounded, in a `RunError`, an
 * `ApprovalError` and an `error` event's `ConnectionError` alike.
 */
import { describe, expect, it } from 'vitest';
import { MAX_SERVICE_CODE_CHARS, MAX_SERVICE_MESSAGE_CHARS } from '../../src/client/service-words';
import { Agent, Client } from '../../src/index';
import { FAKE_URL, fakeWebSocket, useFakeService, welcome } from './fake-service';

const { service, clients } = useFakeService();
const KEY = 'sk-service-words-4242';

async function connected() {
  const client = new Client({
    url: FAKE_URL,
    WebSocket: fakeWebSocket(),
    apiKey: KEY,
    tools: [],
    reconnect: false,
  });
  clients.push(client);
  // Frames of a megabyte are read: the service announces room for them.
  const opened = service.nextConnection();
  const connecting = client.connect();
  const connection = await opened;
  await connection.next('hello');
  connection.send(welcome('s1', { maxPayloadBytes: 4_000_000 }));
  await connecting;
  return { client, connection };
}

/** The rejection of a run the service answers with `answer(requestId)`. */
async function refusedRun(answer: (requestId: string) => Record<string, unknown>): Promise<Error> {
  const { client, connection } = await connected();
  const started = connection.next('run_start');
  const running = client.run(new Agent({ name: 'A', instructions: 'x' }), 'go');
  connection.send(answer((await started).requestId));
  return running.then(
    () => {
      throw new Error('the run resolved');
    },
    (error: unknown) => error as Error,
  );
}

describe("the service's words in an error", () => {
  it('redacts a code that quotes the key, in the RunError and its JSON', async () => {
    const error = await refusedRun((requestId) => ({
      type: 'error',
      code: `weird_${KEY}`,
      message: 'm',
      requestId,
    }));
    expect(error).toMatchObject({ name: 'RunError', code: 'weird_[redacted]', message: 'm' });
    expect(JSON.stringify(error)).not.toContain(KEY);
  });

  it('cuts a code of 5,000 characters to 64, ending in …', async () => {
    const error = await refusedRun((requestId) => ({
      type: 'error',
      code: 'c'.repeat(5_000),
      message: 'nope',
      requestId,
    }));
    expect(MAX_SERVICE_CODE_CHARS).toBe(64);
    expect((error as Error & { code: string }).code).toBe(`${'c'.repeat(63)}…`);
  });

  it("cuts an error frame's message of 900 KB to the cap, saying how long it was", async () => {
    const error = await refusedRun((requestId) => ({
      type: 'error',
      code: 'not_allowed',
      message: 'm'.repeat(900_000),
      requestId,
    }));
    const mark = '… (900000 characters)';
    expect(error.message).toBe(`${'m'.repeat(MAX_SERVICE_MESSAGE_CHARS - mark.length)}${mark}`);
  });

  it("cuts a failed run's error of 900 KB, redacted before the cut", async () => {
    const { client, connection } = await connected();
    const started = connection.next('run_start');
    const running = client.run(new Agent({ name: 'A', instructions: 'x' }), 'go');
    const { requestId } = await started;
    connection.send({ type: 'run_started', requestId, runId: 'r1' });
    // The key straddles where the message is cut: redacted first, no part of it is left.
    const prefix = 'e'.repeat(MAX_SERVICE_MESSAGE_CHARS - '… (900000 characters)'.length - 5);
    const text = `${prefix}${KEY}${'e'.repeat(900_000)}`;
    const redactedLength = prefix.length + '[redacted]'.length + 900_000;
    connection.send({
      type: 'run_result',
      runId: 'r1',
      status: 'failed',
      error: text,
      toolCalls: [],
      turns: 1,
    });
    const error = await running.then(
      () => undefined,
      (failure: unknown) => failure as Error,
    );
    expect(error).toMatchObject({ name: 'RunError', code: 'run_failed' });
    expect(error?.message).toBe(`${prefix}[reda… (${redactedLength} characters)`);
  });

  it('bounds and redacts the code and message of an error event', async () => {
    const { client, connection } = await connected();
    const errors: Array<Error & { code?: string }> = [];
    client.on('error', (error) => errors.push(error));
    const emitted = new Promise((resolve) => client.once('error', resolve));
    connection.send({ type: 'error', code: `${KEY}_${'x'.repeat(5_000)}`, message: 'm'.repeat(900_000) });
    await emitted;
    expect(errors).toHaveLength(1);
    const [error] = errors;
    expect(error?.code).toBe(
      `service_[redacted]_${'x'.repeat(MAX_SERVICE_CODE_CHARS - '[redacted]_…'.length)}…`,
    );
    expect(error?.message.length).toBeLessThanOrEqual(MAX_SERVICE_MESSAGE_CHARS + 25);
    expect(JSON.stringify(error)).not.toContain(KEY);
  });
});
