/**
 * A failed attempt as each runtime reports it, and the `ConnectionError` code it gets (src/wire/link.ts
 * `attemptFailure`): the same code for the same event on every runtime. The error events below were captured from
 * the runtimes themselves (Bun 1.x and Deno 2.9.6 on Linux, their own WebSocket called with
 * `{ protocols, headers }`; Node 20 and 24 with `ws` 8), connecting to `ws://127.0.0.1:<port>/v1/ws?token=abcd`:
 * a port nothing listens on, an unroutable address (`[2001:db8::1]`), HTTP servers answering 200, 404 and 502, a
 * WebSocket server selecting no subprotocol, and a TCP server that is not HTTP.
 */
import { describe, expect, it } from 'vitest';
import { type AttemptFailure, attemptFailure } from '../../src/wire/link';
import { openTransport, type WebSocketConstructor } from '../../src/wire/transport';

const URL = 'ws://127.0.0.1:8799/v1/ws?token=abcd';
const SHOWN = 'ws://127.0.0.1:8799/v1/ws?[redacted]';
const refused = (detail: string) => `${SHOWN}: connection refused (${detail})`;

/** An error event from Bun: its message and its error's quote the URL whole; a code where the system gave one. */
function bun(said: string, code?: string) {
  const message = `WebSocket connection to '${URL}' failed: ${said}`;
  const error = Object.assign(new Error(message), code === undefined ? {} : { code });
  return { event: { type: 'error', message, error }, close: { code: 1006, reason: '' } };
}

/** An error event from Deno: a `NetworkError` DOMException (its `code` the number 19), then a close with code 0. */
function deno(said: string) {
  const error = new DOMException(`failed to connect to WebSocket: ${said}`, 'NetworkError');
  return {
    event: { type: 'error', message: `NetworkError: ${error.message}`, error },
    close: { code: 0, reason: '' },
  };
}

/** What a socket of Bun's or Deno's own WebSocket (the `'options'` style) fails with, classified. */
function classified(report: { event: unknown; close: { code: number; reason: string } }): AttemptFailure {
  let socket: { onerror(event: unknown): void; onclose(event: unknown): void } | undefined;
  const Native = class {
    readyState = 0;
    bufferedAmount = 0;
    protocol = '';
    onopen = null;
    onmessage = null;
    onclose = null;
    onerror = null;
    constructor() {
      socket = this as never;
    }
    send() {}
    close() {}
  } as unknown as WebSocketConstructor;
  let failure: AttemptFailure | undefined;
  openTransport(
    Native,
    URL,
    { style: 'options', headers: { Authorization: 'Bearer k' }, maxPayloadBytes: 1_024 },
    {
      onOpen() {},
      onMessage() {},
      onBinary() {},
      onClose: (code, reason, socketFailure) => {
        failure = attemptFailure({
          url: URL,
          code,
          reason,
          failure: socketFailure,
          opened: false,
          sendsHeaders: true,
        });
      },
    },
  );
  socket?.onerror(report.event);
  socket?.onclose(report.close);
  if (failure === undefined) throw new Error('the transport did not close');
  return failure;
}

const summary = (failure: AttemptFailure) => ({
  code: failure.error.code,
  message: failure.error.message,
  fatal: failure.fatal,
  notTheProtocol: failure.notTheProtocol ?? false,
});

describe('nothing listening: connection_refused on every runtime', () => {
  it('Node (ws): ECONNREFUSED', () => {
    const error = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8799'), {
      code: 'ECONNREFUSED',
      errno: -111,
      syscall: 'connect',
    });
    const failure = attemptFailure({
      url: URL,
      code: 1006,
      reason: '',
      failure: { error },
      opened: false,
      sendsHeaders: true,
    });
    expect(summary(failure)).toEqual({
      code: 'connection_refused',
      message: refused('connect ECONNREFUSED 127.0.0.1:8799'),
      fatal: false,
      notTheProtocol: false,
    });
    expect(failure.error.cause).toBe(error);
  });

  it('Bun: "Failed to connect", its code ECONNREFUSED (the URL shown without its query)', () => {
    const failure = classified(bun('Failed to connect', 'ECONNREFUSED'));
    expect(summary(failure)).toEqual({
      code: 'connection_refused',
      message: refused(`WebSocket connection to '${SHOWN}' failed: Failed to connect`),
      fatal: false,
      notTheProtocol: false,
    });
    expect(JSON.stringify([failure.error.message, String(failure.error.cause)])).not.toContain('abcd');
  });

  it('Deno: "tcp connect error", which an unreachable host gives too (it does not say which)', () => {
    expect(summary(classified(deno('tcp connect error')))).toEqual({
      code: 'connection_refused',
      message: `${SHOWN}: connection refused, or the host unreachable (failed to connect to WebSocket: tcp connect error: this runtime does not say which)`,
      fatal: false,
      notTheProtocol: false,
    });
  });
});

describe('the other failures, as each runtime reports them', () => {
  it.each([
    ['Bun, an unroutable address', 'network_error', false, bun('Failed to connect', 'EHOSTUNREACH')],
    ['Bun, a server not HTTP', 'network_error', false, bun('Invalid response', 'HPE_INVALID_CONSTANT')],
    ['Deno, a server that is not HTTP', 'network_error', false, deno('invalid HTTP version parsed')],
    ['Bun, HTTP 502', 'upgrade_failed', false, bun('Expected 101 status code: 502')],
    ['Deno, HTTP 502', 'upgrade_failed', false, deno('Invalid status code: 502')],
    ['Bun, HTTP 200', 'upgrade_failed', true, bun('Expected 101 status code: 200')],
    ['Deno, HTTP 404', 'upgrade_failed', true, deno('Invalid status code: 404')],
    ['Bun, HTTP 401', 'unauthorized', false, bun('Expected 101 status code: 401')],
    ['Bun, no subprotocol selected', 'unsupported_protocol', true, bun('Missing client protocol')],
    ['Bun, another subprotocol selected', 'unsupported_protocol', true, bun('Mismatch client protocol')],
  ])('%s: %s', (_what, code, notTheProtocol, report) => {
    const failure = classified(report);
    expect(failure.error.code).toBe(code);
    expect(failure.notTheProtocol ?? false).toBe(notTheProtocol);
    expect(failure.fatal).toBe(code === 'unauthorized');
  });
});
