/**
 * Logging for the stub. The shape is pino's (`logger.warn({ fields }, 'message')`), so a pino logger, the SDK's
 * logger or the console adapter below can be passed as `startStubServer({ logger })`.
 *
 * @module
 */

/** A pino-compatible logger: each method takes structured fields and a message. */
export interface StubLogger {
  debug(fields: Record<string, unknown>, message: string): void;
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
  error(fields: Record<string, unknown>, message: string): void;
}

/** Discards everything. */
export const silentLogger: StubLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};

/**
 * Writes `info`, `warn` and `error` lines to stderr (stdout is kept for the URL the CLI prints); drops `debug`
 * unless `debug` is `true`. This is the stub's default logger.
 */
export function consoleLogger(options: { debug?: boolean } = {}): StubLogger {
  const write = (level: string, fields: Record<string, unknown>, message: string) => {
    const extra = Object.keys(fields).length > 0 ? ` ${safeJson(fields)}` : '';
    process.stderr.write(`[toolwire-stub] ${level} ${message}${extra}\n`);
  };
  return {
    debug: (fields, message) => {
      if (options.debug) write('debug', fields, message);
    },
    info: (fields, message) => write('info', fields, message),
    warn: (fields, message) => write('warn', fields, message),
    error: (fields, message) => write('error', fields, message),
  };
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, item: unknown) =>
      item instanceof Error ? { name: item.name, message: item.message } : item,
    );
  } catch {
    return '[unserialisable]';
  }
}
