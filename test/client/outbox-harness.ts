/**
 * An `Outbox` on a socket a test makes, and a socket that records what is written: what the outbox's tests share.
 */
import type { WidgetInvalidInfo } from '../../src/call/types';
import { Outbox, type OutboxOptions } from '../../src/client/outbox';
import { Redactor } from '../../src/logger';
import type { ClientFrame } from '../../src/wire/protocol';

/** A socket whose buffer and state the test sets, recording what is written. */
export function fakeSocket(maxPayloadBytes = 1_048_576) {
  const sent: ClientFrame[] = [];
  return {
    sent,
    writable: true,
    bufferedAmount: 0,
    maxPayloadBytes,
    send(frame: ClientFrame): boolean {
      sent.push(frame);
      return true;
    },
  };
}

/**
 * An outbox on `socket` (a high-water mark of 1,000 bytes unless given), redacting `redact`, and the widgets it
 * dropped as invalid.
 */
export function outboxOn(
  socket: OutboxOptions['socket'],
  options: Partial<Omit<OutboxOptions, 'socket' | 'redactor' | 'widgetInvalid'>> & { redact?: string[] } = {},
) {
  const { redact = [], ...rest } = options;
  const dropped: WidgetInvalidInfo[] = [];
  const outbox = new Outbox({
    socket,
    highWaterMarkBytes: 1_000,
    ...rest,
    redactor: new Redactor(redact),
    widgetInvalid: (info) => dropped.push(info),
  });
  return { outbox, dropped };
}
