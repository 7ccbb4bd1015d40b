/**
 * Closing a server-side socket politely but surely.
 *
 * @module
 */
import type { WebSocket } from 'ws';

/** How long a peer gets to answer our close frame before its TCP connection is destroyed, in milliseconds. */
export const CLOSE_HANDSHAKE_MS = 1_000;

/** RFC 6455 §5.5: a close reason fits in 123 bytes of UTF-8. */
const MAX_REASON_BYTES = 123;

/**
 * Sends a close frame with `code` and `reason` (cut to 123 bytes at a character boundary), then destroys the
 * connection if the peer has not completed the close handshake within {@link CLOSE_HANDSHAKE_MS}.
 */
export function closeSocket(ws: WebSocket, code: number, reason: string): void {
  if (ws.readyState === ws.CLOSED) return;
  const timer = setTimeout(() => ws.terminate(), CLOSE_HANDSHAKE_MS);
  timer.unref();
  ws.once('close', () => clearTimeout(timer));
  try {
    if (ws.readyState === ws.OPEN) ws.close(code, truncateReason(reason));
  } catch {
    ws.terminate();
  }
}

/**
 * The code of the close frame the peer sent, once `ws` has read it; `undefined` before. `ws` tells of the peer's
 * close only with its `close` event, once the TCP connection has ended too: a moment later, or at its close
 * timeout (30 s) when the peer never ends it. Until then it keeps the code it read in fields of its own (ws 8),
 * read here; without them the answer is `undefined`, as before any close frame.
 */
export function closeCodeReceived(ws: WebSocket): number | undefined {
  const read = ws as unknown as { _closeFrameReceived?: unknown; _closeCode?: unknown };
  return read._closeFrameReceived === true && typeof read._closeCode === 'number'
    ? read._closeCode
    : undefined;
}

/** Cuts `reason` to at most 123 UTF-8 bytes without splitting a character. */
export function truncateReason(reason: string): string {
  if (Buffer.byteLength(reason) <= MAX_REASON_BYTES) return reason;
  let out = '';
  for (const char of reason) {
    if (Buffer.byteLength(out + char) > MAX_REASON_BYTES - 3) break;
    out += char;
  }
  return `${out}...`;
}
