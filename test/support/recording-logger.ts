import type { Logger } from '../../src/logger';

/** One line a {@link recordingLogger} kept: its level, the object logged with it, and the message. */
export interface RecordedLine {
  level: string;
  object: Record<string, unknown>;
  message: string;
}

/** A logger that keeps every line it is given, in order, for a test to read back (`lines`). */
export function recordingLogger(): { logger: Logger; lines: RecordedLine[] } {
  const lines: RecordedLine[] = [];
  const at =
    (level: string) =>
    (object: Record<string, unknown>, message: string): void => {
      lines.push({ level, object, message });
    };
  const logger: Logger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  return { logger, lines };
}
