/**
 * The Client's own paths for secrets: errors the client hands its caller (events, `connect()` and `run()`
 * rejections) never quote the key. A short API key: test/client/short-api-key.test.ts.
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Agent, Client, tool } from '../../src/index';
import type { Logger } from '../../src/logger';
import { recordingLogger } from '../support/recording-logger';
import { FAKE_URL, fakeWebSocket, useFakeService } from './fake-service';

const { service, clients } = useFakeService();

const echoKey = tool({
  name: 'echo_key',
  description: 'Says which key it was given.',
  execute: () => {
    throw new Error('the dev key dev was refused');
  },
});

async function connected(apiKey: string, logger: Logger) {
  const client = new Client({
    url: FAKE_URL,
    WebSocket: fakeWebSocket(),
    apiKey,
    tools: [echoKey],
    logger,
    reconnect: false,
  });
  clients.push(client);
  const connection = await service.connect(client);
  return { client, connection };
}

describe('errors handed to the caller', () => {
  it('never quote the key: an error event with the service’s words, a run() rejection', async () => {
    const apiKey = 'sk-"quoted"\\key-123';
    const { logger } = recordingLogger();
    const { client, connection } = await connected(apiKey, logger);
    const errors: Error[] = [];
    client.on('error', (error) => errors.push(error));
    connection.send({ type: 'error', code: 'internal', message: `your key ${apiKey} is odd` });
    const started = connection.next('run_start');
    const running = client.run(new Agent({ name: 'A', instructions: 'x' }), 'go');
    const start = await started;
    connection.send({
      type: 'error',
      code: 'not_allowed',
      message: `key ${JSON.stringify(apiKey)} may not run agents`,
      requestId: start.requestId,
    });
    const refused = await running.then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(refused?.message).toBe('key "[redacted]" may not run agents');
    expect(errors.map((error) => error.message)).toEqual([
      'the service reported: your key [redacted] is odd',
    ]);
    for (const error of [...errors, refused]) expect(String(error?.stack)).not.toContain('key-123');
  });

  it('never quote the key when connect() fails for a URL that holds it', async () => {
    const apiKey = 'url-held-key-0042';
    const client = new Client({ url: `ws://bad host/${apiKey}`, apiKey, tools: [], reconnect: false });
    clients.push(client);
    const failure = await client.connect().then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failure?.message).toContain('[redacted]');
    expect(failure?.message).not.toContain(apiKey);
  });

  it('never hide the key in a field no console.error prints, in the abort reason a run() rejects with', async () => {
    const apiKey = 'hidden-field-key-0099';
    const { logger } = recordingLogger();
    const { client } = await connected(apiKey, logger);
    // A library's error that keeps its request out of sight of a plain `console.error`, given as the abort reason.
    const reason = Object.defineProperty(new Error('upstream refused'), 'request', {
      value: { headers: { authorization: `Bearer ${apiKey}` } },
      enumerable: false,
    });
    const failure = await client
      .run(new Agent({ name: 'A', instructions: 'x' }), 'go', { signal: AbortSignal.abort(reason) })
      .then(
        () => undefined,
        (error: unknown) => error as Error,
      );
    expect(failure).toBeInstanceOf(Error);
    expect(inspect(failure, { showHidden: true, depth: 20 })).toContain('upstream refused');
    expect(inspect(failure, { showHidden: true, depth: 20 })).not.toContain(apiKey);
    expect(inspect(reason, { showHidden: true, depth: 20 })).toContain(apiKey);
  });
});

describe('ids and words the service chose', () => {
  it('reach event listeners and traces redacted: a call id, a run id, an agent name, a close reason', async () => {
    const apiKey = 'svc-echoed-key-77';
    const starts: unknown[] = [];
    const client = new Client({
      url: FAKE_URL,
      WebSocket: fakeWebSocket(),
      apiKey,
      tools: [tool({ name: 'ok', description: 'Answers ok.', execute: () => 'ok' })],
      logger: recordingLogger().logger,
      reconnect: false,
      tracing: {
        startCall(call) {
          starts.push({ ...call, arguments: undefined });
          return undefined;
        },
      },
    });
    clients.push(client);
    const connection = await service.connect(client);
    const seen: unknown[] = [];
    for (const event of ['tool_call', 'tool_result', 'disconnected'] as const)
      client.on(event, (info: unknown) => seen.push(info));
    const answered = connection.next('tool_result');
    connection.send({
      type: 'tool_call',
      callId: `call-${apiKey}`,
      runId: `run-${apiKey}`,
      agentName: `agent ${apiKey}`,
      toolName: 'ok',
      arguments: {},
      deadlineMs: 5_000,
    });
    // The service gets its own id back, as it sent it: it is the service's to know.
    expect((await answered).callId).toBe(`call-${apiKey}`);
    const closed = new Promise((resolve) => client.once('disconnected', resolve));
    connection.close(4000, `bye ${apiKey}`);
    await closed;
    expect(seen).toEqual([
      { callId: 'call-[redacted]', runId: 'run-[redacted]', toolName: 'ok' },
      expect.objectContaining({
        callId: 'call-[redacted]',
        runId: 'run-[redacted]',
        status: 'ok',
        output: 'ok',
      }),
      { code: 4000, reason: 'bye [redacted]' },
    ]);
    expect(starts).toEqual([
      expect.objectContaining({
        callId: 'call-[redacted]',
        runId: 'run-[redacted]',
        agentName: 'agent [redacted]',
      }),
    ]);
    expect(JSON.stringify([seen, starts])).not.toContain(apiKey);
  });
});
