/**
 * Logging. A client given no logger writes its `error` lines to the console ({@link consoleErrorLogger}) and
 * nothing else; everything it logs passes through a {@link Redactor} first (./redact.ts), so the API key and
 * user-named secrets never reach a log line. Here: the logger's shape, the default loggers, the loggers toolwire
 * wraps yours in (redacting, scoped to a call), and the helpers that keep secrets out of messages (a URL as
 * shown, a scrubbed error).
 *
 * @module
 */
import { REDACTED, Redactor, type RedactRule, SHORT_SECRET } from './redact';

export { REDACTED, Redactor, type RedactRule } from './redact';

/** A pino-compatible logger: each method takes a structured object and a message. */
export interface Logger {
  debug(object: Record<string, unknown>, message: string): void;
  info(object: Record<string, unknown>, message: string): void;
  warn(object: Record<string, unknown>, message: string): void;
  error(object: Record<string, unknown>, message: string): void;
}

/**
 * One level of a {@link CallLogger}: what a pino logger's method takes. Fields and a message (pino's `%s`, `%d`,
 * `%i`, `%f`, `%j`, `%o`, `%O` and `%%` filled from `args`; what is left added to the message, a plain object's
 * fields to the line's), an `Error` (as the line's `err`; its message when none is given), or a message alone.
 */
export interface LogMethod {
  (fields: Record<string, unknown>, message?: string, ...args: unknown[]): void;
  (error: Error, message?: string): void;
  (message: string, ...args: unknown[]): void;
}

/**
 * `ctx.logger`: a {@link Logger} that also takes pino's other forms ({@link LogMethod}), as a tool written for pino
 * calls it. Each line reaches the client's logger as `(fields, message)`, or `(fields)` when it has no message.
 */
export interface CallLogger extends Logger {
  debug: LogMethod;
  info: LogMethod;
  warn: LogMethod;
  error: LogMethod;
}

/** A logger that discards everything: `invokeTool`'s default, and `ctx.logger` where there is no logger. */
export const silentLogger: CallLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};

/**
 * A client's default logger: each `error` line to `console.error` (stderr in Node, Bun and Deno), as
 * `[toolwire] error <message> <fields as JSON>`; `debug`, `info` and `warn` discarded. An `error` line says the
 * client stopped doing its work or lost some of it, where no exception reaches the application: refused for good
 * after it connected (a revoked key, 4001; fleet limits that disagree, 4010), a result it could not deliver, a
 * listener of its own that threw, a tool's `ctx.logger.error()`. A process that listens for no event still leaves
 * that line in its supervisor's log. What the client recovers from (a failed attempt it retries) is a `warn`,
 * left to a logger the application gives, but for one line ({@link consoleNotice}): `connect()`'s first attempt
 * failed and it tries again. The client redacts every line before it reaches this logger.
 */
export const consoleErrorLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error(fields, message) {
    globalThis.console?.error(logLine('[toolwire]', 'error', fields, message));
  },
};

/**
 * Where a client given no logger writes the one `warn` line it does not leave to {@link consoleErrorLogger}'s
 * silence: `connect()`'s first attempt failed and the client tries again, so that a wrong url or a service not yet
 * started does not look like a hang until `connectTimeoutMs`. `console.warn` (stderr in Node, Bun and Deno), as
 * `[toolwire] warn <message> <fields as JSON>`; the other levels discarded. Redacted by the client first.
 */
export const consoleNotice: Logger = {
  debug() {},
  info() {},
  warn(fields, message) {
    globalThis.console?.warn(logLine('[toolwire]', 'warn', fields, message));
  },
  error() {},
};

/**
 * One log line as text: `<prefix> <level> <message>`, then the fields as JSON when there are any (an `Error` as its
 * `name` and `message`, never its stack; fields that cannot be serialised as `[unserialisable]`).
 */
export function logLine(
  prefix: string,
  level: string,
  fields: Record<string, unknown>,
  message: string | undefined,
): string {
  const extra = typeof fields === 'object' && fields !== null && Object.keys(fields).length > 0;
  return `${prefix} ${level}${message === undefined ? '' : ` ${message}`}${extra ? ` ${fieldsJson(fields)}` : ''}`;
}

function fieldsJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_key, item: unknown) =>
      item instanceof Error
        ? { name: item.name, message: item.message }
        : typeof item === 'bigint'
          ? item.toString()
          : item,
    );
  } catch {
    return '[unserialisable]';
  }
}

/** Wraps a logger so that every message and field goes through the redactor. A logger that throws is ignored. */
export function redactingLogger(logger: Logger, redactor: Redactor): Logger {
  return scopedLogger(logger, {}, redactor);
}

/**
 * A URL as messages may show it: the scheme, host and path, with the userinfo, query and fragment (where tokens
 * travel) replaced by {@link REDACTED}. Works on text that is not a valid URL too.
 *
 * @example
 * ```ts
 * displayUrl('wss://svc.example/ws?token=abc'); // 'wss://svc.example/ws?[redacted]'
 * ```
 */
export function displayUrl(url: string): string {
  return urlSecrets(url).shown;
}

/**
 * Scrubs a text that may quote `url` (a WebSocket's refusal of it): the URL whole becomes {@link displayUrl}'s, and
 * its userinfo, query and fragment quoted alone (Chromium quotes a fragment it refuses) become {@link REDACTED}, as
 * {@link secretScrubber} scrubs the strings it is given.
 */
export function urlScrubber(url: string): (text: string) => string {
  const { shown, secrets } = urlSecrets(url);
  const scrub = secretScrubber(secrets);
  return (text) => scrub(text.replaceAll(url, shown));
}

/** `url` as {@link displayUrl} shows it, and the parts it hides (userinfo, query, fragment), without `@`, `?`, `#`. */
function urlSecrets(url: string): { shown: string; secrets: string[] } {
  const [, head = '', query, fragment] = /^([^?#]*)(\?[^#]*)?(#.*)?$/s.exec(url) ?? [];
  // Userinfo ends at the last `@` before the query; it begins after the scheme and its slashes, however many (a
  // mistyped `ws:/` or a leading space included), else at the start: too much hidden rather than a secret shown.
  const at = head.lastIndexOf('@');
  const scheme = /^\s*[a-zA-Z][a-zA-Z0-9+.-]*:\/+/.exec(head)?.[0] ?? '';
  const userinfo = scheme.length > at ? undefined : head.slice(scheme.length, at);
  return {
    shown:
      (userinfo === undefined ? head : `${scheme}${REDACTED}@${head.slice(at + 1)}`) +
      (query === undefined ? '' : `?${REDACTED}`) +
      (fragment === undefined ? '' : `#${REDACTED}`),
    secrets: [userinfo, query?.slice(1), fragment?.slice(1)].filter((part): part is string => !!part),
  };
}

/**
 * Scrubs secrets from a value a message quotes: every string given (one shorter than {@link SHORT_SECRET}
 * characters only where the value is it entirely, as a `Client` treats such a key: `"kilo"` keeps its `k`) and
 * every match of a RegExp given (one that matches the empty string is skipped); anything else is ignored.
 * Overlapping matches are replaced as one span, so no rule can leave part of another's match behind.
 */
export function secretScrubber(secrets: readonly unknown[]): (text: string) => string {
  const strings = secrets.filter((secret): secret is string => typeof secret === 'string' && secret !== '');
  const patterns = secrets.filter(
    (secret): secret is RegExp =>
      secret instanceof RegExp && !new RegExp(secret.source, secret.flags.replace(/[gy]/g, '')).test(''),
  );
  const rules: RedactRule[] = [...strings.filter((secret) => secret.length >= SHORT_SECRET), ...patterns];
  const redactor = new Redactor(rules, { whole: strings.filter((secret) => secret.length < SHORT_SECRET) });
  return (text) => redactor.text(text);
}

/**
 * `error` with `scrub` applied to its message and stack, as a plain `Error` of the same `name` (its own `cause`
 * dropped): for keeping a failure as a `cause` when its text quotes a secret. Anything else is returned as it is.
 */
export function scrubError(error: unknown, scrub: (text: string) => string): unknown {
  if (!(error instanceof Error)) return error;
  const copy = new Error(scrub(error.message));
  copy.name = error.name;
  copy.stack = error.stack === undefined ? undefined : scrub(error.stack);
  return copy;
}

/**
 * A line's own fields, each read on its own: a getter that throws gives `'[Unreadable]'` for its field, not the loss
 * of the line.
 */
function readableFields(object: Record<string, unknown>): Record<string, unknown> {
  if (typeof object !== 'object' || object === null) return {};
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(object)) {
    try {
      out[key] = object[key];
    } catch {
      out[key] = '[Unreadable]';
    }
  }
  return out;
}

const isFields = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `format` with pino's placeholders (`%s`, `%d`, `%i`, `%f`, `%j`, `%o`, `%O`, `%%`) filled from `args`; the rest left. */
function interpolated(format: string, args: unknown[]): { text: string; left: unknown[] } {
  let next = 0;
  const text = format.replace(/%[sdifjoO%]/g, (token) => {
    if (token === '%%') return '%';
    if (next >= args.length) return token;
    const arg = args[next++];
    if (token === '%d' || token === '%i' || token === '%f') return String(Number(arg));
    if (token === '%s') return typeof arg === 'string' ? arg : String(arg);
    try {
      return JSON.stringify(arg) ?? String(arg);
    } catch {
      return String(arg);
    }
  });
  return { text, left: args.slice(next) };
}

/**
 * A line as the methods of a pino logger take it: `(fields, message?, ...args)`, `(error, message?)` (the error
 * as `err`), or `(message, ...args)`; a plain object left after the placeholders adds its fields, anything else
 * left is added to the message. `message` is `undefined` when none was given.
 */
function lineOf(args: unknown[]): { object: Record<string, unknown>; message: string | undefined } {
  const [first, second, ...rest] = args;
  if (first instanceof Error)
    return { object: { err: first }, message: typeof second === 'string' ? second : first.message };
  let object: Record<string, unknown> = {};
  let format: unknown;
  let left: unknown[];
  if (isFields(first)) {
    object = readableFields(first);
    format = second;
    left = rest;
  } else {
    format = first;
    left = args.slice(1);
  }
  if (format === undefined) return { object, message: undefined };
  const filled = interpolated(typeof format === 'string' ? format : String(format), left);
  let message = filled.text;
  for (const arg of filled.left) {
    if (isFields(arg) && !(arg instanceof Error)) object = { ...object, ...readableFields(arg) };
    else message += ` ${typeof arg === 'string' ? arg : String(arg)}`;
  }
  return { object, message };
}

/**
 * `logger` for one scope (a call): `fields` added to every line (a line's own fields win), and every message and
 * field passed through `redactor` first when given. A logger that throws is ignored. Takes what a pino logger's
 * methods take (`ctx.logger.info('rows: %d', 4)`, `warn(error)`), not only `(fields, message)`, so that no line a
 * tool's JavaScript writes is lost; the line reaches `logger` as `(fields, message)`, or `(fields)` without one.
 */
export function scopedLogger(
  logger: Logger,
  fields: Record<string, unknown>,
  redactor?: Pick<Redactor, 'value' | 'text'> | undefined,
): CallLogger {
  const wrap =
    (level: keyof Logger) =>
    (...args: unknown[]): void => {
      try {
        const read =
          args.length === 2 && isFields(args[0]) && !(args[0] instanceof Error) && typeof args[1] === 'string'
            ? { object: readableFields(args[0]), message: args[1] }
            : lineOf(args);
        const line = { ...fields, ...read.object };
        const shown = redactor === undefined ? line : redactor.value(line);
        const { message } = read;
        const write = logger[level] as (object: Record<string, unknown>, message?: string) => void;
        if (message === undefined) write.call(logger, shown);
        else write.call(logger, shown, redactor === undefined ? message : redactor.text(message));
      } catch {
        // A broken logger must not break the tool.
      }
    };
  return { debug: wrap('debug'), info: wrap('info'), warn: wrap('warn'), error: wrap('error') };
}
