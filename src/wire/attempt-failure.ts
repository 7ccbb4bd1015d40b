/**
 * Why a connection attempt failed, in words a person can act on, and whether trying again can help. An attempt
 * fails when its socket closes before `welcome`; what the runtime said about it (see {@link SocketFailure}) and
 * the close code decide the {@link ConnectionError} code:
 *
 * | code                    | what happened                                                                   | retried |
 * | ----------------------- | ------------------------------------------------------------------------------- | ------- |
 * | `connection_refused`    | nothing listens at the address (`ECONNREFUSED`)                                  | yes     |
 * | `host_not_found`        | the host name does not resolve (`ENOTFOUND`, `EAI_AGAIN`)                        | yes     |
 * | `network_error`         | any other socket or TLS error the runtime names                                 | yes     |
 * | `upgrade_failed`        | the upgrade was answered with an HTTP status other than 101 (a 3xx names where) | yes     |
 * | `unauthorized`          | HTTP 401 or 403 at the upgrade, or close 4001: the key was refused              | no      |
 * | `unsupported_protocol`  | no `toolwire.v1` subprotocol selected, or close 4002                            | no      |
 * | `connection_failed`     | the runtime's WebSocket failed and gives no reason (browsers)                   | yes     |
 * | `closed_before_welcome` | the socket opened, then closed before `welcome`                                 | yes     |
 *
 * `handshake_timeout` and `invalid_welcome` (./handshake.ts) and `send_failed` are decided by the link itself.
 *
 * @module
 */

import { ConnectionError } from '../errors';
import { displayUrl } from '../logger';
import { CLOSE_CODES, SUBPROTOCOL } from './protocol';
import type { SocketFailure } from './transport';

/** A failed attempt: the error to report and whether reconnecting can help. */
export interface AttemptFailure {
  error: ConnectionError;
  fatal: boolean;
}

/** What is known of an attempt whose socket closed before `welcome`. */
export interface AttemptFacts {
  url: string;
  code: number;
  reason: string;
  failure: SocketFailure;
  /** The socket opened (the upgrade completed). */
  opened: boolean;
  /** The runtime's WebSocket sends headers (the key went in `Authorization`, not in `hello`). */
  sendsHeaders: boolean;
}

const HOST_NOT_FOUND = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_NODATA']);

/** Classifies a failed attempt. */
export function attemptFailure(facts: AttemptFacts): AttemptFailure {
  // Messages show the URL without userinfo, query or fragment, where tokens travel.
  const url = displayUrl(facts.url);
  const { code, reason, failure } = facts;
  const retry = (errorCode: string, message: string, cause?: unknown): AttemptFailure => ({
    error: new ConnectionError(errorCode, `${url}: ${message}`, cause === undefined ? undefined : { cause }),
    fatal: false,
  });
  const stop = (errorCode: string, message: string): AttemptFailure => ({
    error: new ConnectionError(errorCode, `${url}: ${message}`),
    fatal: true,
  });
  if (failure.status !== undefined) {
    if (failure.status === 401 || failure.status === 403) {
      return stop(
        'unauthorized',
        `the API key was refused at the WebSocket upgrade (HTTP ${failure.status})`,
      );
    }
    const redirect =
      failure.status >= 300 && failure.status < 400 && failure.location !== undefined
        ? ` (a redirect to ${failure.location}: use that URL; WebSocket clients do not follow redirects)`
        : '';
    return retry(
      'upgrade_failed',
      `the WebSocket upgrade was answered with HTTP ${failure.status} instead of 101${redirect}`,
    );
  }
  if (failure.selectedProtocol !== undefined && failure.selectedProtocol !== SUBPROTOCOL) {
    return unsupportedProtocol(url);
  }
  if (code === CLOSE_CODES.unauthorized || code === CLOSE_CODES.unsupportedProtocol) {
    return stop(
      code === CLOSE_CODES.unauthorized ? 'unauthorized' : 'unsupported_protocol',
      `the service refused the connection (${code}${reason ? `: ${reason}` : ''})`,
    );
  }
  if (facts.opened) {
    return retry(
      'closed_before_welcome',
      `the socket closed before welcome (${code}${reason ? ` ${reason}` : ''})`,
    );
  }
  const error = failure.error as { code?: unknown; message?: unknown } | undefined;
  const detail = typeof error?.message === 'string' ? error.message : '';
  if (error?.code === 'ECONNREFUSED')
    return retry('connection_refused', `connection refused (${detail})`, error);
  if (typeof error?.code === 'string' && HOST_NOT_FOUND.has(error.code)) {
    return retry('host_not_found', `host not found (${detail})`, error);
  }
  if (detail) return retry('network_error', `the connection failed (${detail})`, error);
  return retry(
    'connection_failed',
    `the connection failed before the WebSocket upgrade completed; this runtime's WebSocket gives no reason (connection refused, host not found, TLS, or an HTTP status such as 401 from a gateway)${
      facts.sendsHeaders
        ? ''
        : '. It cannot send headers either, so the API key travels in hello, not in an Authorization header'
    }`,
  );
}

/** The service completed the upgrade without selecting `toolwire.v1`: it does not speak this protocol. */
export function unsupportedProtocol(url: string): AttemptFailure {
  return {
    error: new ConnectionError(
      'unsupported_protocol',
      `${displayUrl(url)}: the service did not select the subprotocol ${SUBPROTOCOL}, so it does not speak this protocol (is the URL right?)`,
    ),
    fatal: true,
  };
}
