/**
 * Logging for the stub. It takes the SDK's {@link Logger} (pino's shape: `logger.warn({ fields }, 'message')`),
 * so a pino logger, the logger given to a `Client` or the console adapter below can be passed as
 * `startStubServer({ logger })`.
 *
 * @module
 */
import { type Logger, logLine } from '../src/logger';

export { silentLogger } from '../src/logger';

/** What `startStubServer({ logger })` takes: another name for the SDK's {@link Logger}. */
export type StubLogger = Logger;

/**
 * Writes `info`, `warn` and `error` lines to stderr (stdout is kept for the URL the CLI prints); drops `debug`
 * unless `debug` is `true`. This is the stub's default logger.
 */
export function consoleLogger(options: { debug?: boolean } = {}): Logger {
  const write = (level: string, fields: Record<string, unknown>, message: string) => {
    process.stderr.write(`${logLine('[toolwire-stub]', level, fields, message)}\n`);
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
