/**
 * The WebSocket close codes of protocol v1 (PROTOCOL.md §14), re-exported by src/wire/protocol.ts.
 *
 * @module
 */

/**
 * WebSocket close codes used by protocol v1 (RFC 6455 §7.4.2 reserves 4000–4999 for applications).
 * 1000 (normal) and 1009 (frame too big, sent by `ws` itself) are used as RFC 6455 defines them.
 */
export const CLOSE_CODES = {
  /** Normal close, e.g. after `client.close()`. */
  normal: 1000,
  /** RFC 6455 policy violation: the peer stopped reading (over `maxBufferedBytes` unread), see §14. */
  policyViolation: 1008,
  /** A frame exceeded `maxPayloadBytes`. */
  tooBig: 1009,
  /** The API key is missing or wrong. Do not reconnect with the same key. */
  unauthorized: 4001,
  /** `hello.protocol` or the subprotocol is not supported. Do not reconnect. */
  unsupportedProtocol: 4002,
  /**
   * The handshake frame was not valid: the service's first frame was not a valid `hello` (or none came within the
   * hello timeout); the client's `welcome` was wrong in a required field (PROTOCOL.md §3).
   */
  helloExpected: 4003,
  /** No ping or pong from the peer within two heartbeat intervals. */
  heartbeatTimeout: 4008,
  /** Another connection resumed this session; this one is superseded. */
  sessionReplaced: 4009,
  /** The peer sent frames faster than the allowed rate. */
  flood: 4029,
  /** The service is shutting down; reconnect later. */
  goingAway: 4050,
} as const;
