/**
 * The stub's dead-peer check (docs/protocol/lifecycle.md): a connection is closed once it has been silent for exactly
 * two
 * heartbeat intervals. One timer per socket, set for the moment the silence would reach two intervals and set
 * again (for the new moment) when a frame came meanwhile: no periodic check that would add up to an interval.
 *
 * @module
 */
import { MAX_TIMEOUT_MS } from '../src/limits';

/** Watches one socket's silence; `stop()` ends the watch. */
export interface SilenceWatch {
  stop(): void;
}

/**
 * Calls `onSilent(silentMs)` once, when nothing has been heard for `2 * intervalMs` (`lastSeen()` is the epoch
 * ms of the last frame).
 */
export function watchSilence(
  intervalMs: number,
  lastSeen: () => number,
  onSilent: (silentMs: number) => void,
): SilenceWatch {
  const limitMs = 2 * intervalMs;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const check = () => {
    const silentMs = Date.now() - lastSeen();
    if (silentMs >= limitMs) {
      timer = undefined;
      onSilent(silentMs);
      return;
    }
    timer = setTimeout(check, Math.min(limitMs - silentMs, MAX_TIMEOUT_MS));
  };
  // Two intervals may be longer than a timer honours: the check then comes back as often as it takes.
  timer = setTimeout(check, Math.min(Math.max(0, limitMs - (Date.now() - lastSeen())), MAX_TIMEOUT_MS));
  return {
    stop() {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
