/** Shared helpers of the stub tests: a stub with a capturing logger, event waits, HTTP calls. */
import {
  type StubEvents,
  type StubLogger,
  type StubServer,
  type StubServerOptions,
  startStubServer,
} from '../../server-stub/index';
import type { AgentDefinition } from '../../src/wire/protocol';
import { afterTest } from '../support/after-test';
import type { TestClient } from './test-client';

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  fields: Record<string, unknown>;
}

/** A logger that keeps every line. */
export function captureLogger(): StubLogger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at =
    (level: LogLine['level']) =>
    (fields: Record<string, unknown>, message: string): void => {
      lines.push({ level, message, fields });
    };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** Starts a stub (closed after the test) with a capturing logger. */
export async function stub(options: StubServerOptions = {}): Promise<StubServer & { log: LogLine[] }> {
  const logger = captureLogger();
  const server = await startStubServer({ logger, ...options });
  afterTest(() => server.close());
  return Object.assign(server, { log: logger.lines });
}

/** Registers clients to close after the test. */
export function track<T extends TestClient>(client: T): T {
  afterTest(() => client.drop());
  return client;
}

/** Resolves on the first `event` whose payload matches `where`. */
export function once<K extends keyof StubEvents>(
  server: StubServer,
  event: K,
  where: (...args: Parameters<StubEvents[K]>) => boolean = () => true,
): Promise<Parameters<StubEvents[K]>[0]> {
  return new Promise((resolve) => {
    const listener = (...args: Parameters<StubEvents[K]>) => {
      if (!where(...args)) return;
      server.events.off(event, listener as never);
      resolve(args[0]);
    };
    server.events.on(event, listener as never);
  });
}

/** An HTTP call to the stub; resolves with the status and the parsed JSON body. */
export async function http(
  server: StubServer,
  method: string,
  path: string,
  body?: unknown,
  apiKey?: string,
): Promise<{ status: number; body: unknown; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (apiKey !== undefined) headers.authorization = `Bearer ${apiKey}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${server.httpUrl}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text === '' ? undefined : JSON.parse(text),
    headers: response.headers,
  };
}

/** An agent definition. */
export function agent(name: string, tools: string[], extra: Partial<AgentDefinition> = {}): AgentDefinition {
  return { name, instructions: `You are ${name}.`, tools, ...extra };
}

/** Drops the client's socket and resolves once the stub has noticed (its session is detached). */
export async function dropAndWait(server: StubServer, client: TestClient): Promise<void> {
  const sessionId = client.sessionId;
  const detached = once(server, 'session_detached', (info) => info.sessionId === sessionId);
  await client.drop();
  await detached;
}
