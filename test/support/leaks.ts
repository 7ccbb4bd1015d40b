/**
 * `findLeak(text, secret)`: where a secret survives in a text, in any form a reader could turn back into it: as
 * written, JSON-escaped (once or twice), with every non-ASCII (or every) character as `\uXXXX` in either case,
 * percent-encoded, lowercased or uppercased; any 8 of its UTF-8, UTF-16LE or UTF-16BE bytes in hex or base64 (at
 * any alignment); and inside anything the text decodes to: JSON (every string and key, recursively, strings that
 * hold JSON included), the text read as the body of a JSON string, its percent-decoding (up to 8 times), the text
 * a base64 run decodes to (base64 in base64), and the bytes of a base64 `data:` URL. The redactor's documented
 * limits (mixed case, hashes, compression, HTML entities, base32, base64 wrapped in lines) are not looked for. `runLeaking(rules, execute)`: everything one call lets out of a client. Used by the
 * redaction tests.
 */
import { ToolRegistry } from '../../src/call/registry';
import { CallRunner } from '../../src/client/calls';
import { type Logger, Redactor, type RedactRule, redactingLogger } from '../../src/logger';
import { tool } from '../../src/tool/tool';
import type { ClientFrame } from '../../src/wire/protocol';

const hex = (unit: number, upper: boolean): string => {
  const digits = unit.toString(16).padStart(4, '0');
  return `\\u${upper ? digits.toUpperCase() : digits}`;
};

/** The forms a secret may take in a text without decoding it first. */
export function encodedForms(secret: string): string[] {
  const once = JSON.stringify(secret).slice(1, -1);
  const twice = JSON.stringify(once).slice(1, -1);
  const forms = new Set([secret, once, twice]);
  for (const upper of [false, true]) {
    forms.add(once.replace(/[^\x20-\x7e]/g, (char) => hex(char.charCodeAt(0), upper)));
    forms.add(Array.from({ length: secret.length }, (_, i) => hex(secret.charCodeAt(i), upper)).join(''));
  }
  try {
    forms.add(encodeURIComponent(secret));
  } catch {
    // a lone surrogate cannot be percent-encoded
  }
  // A key in a hostname or a header name comes back lowercased; some tools shout.
  if (secret.length >= 8) forms.add(secret.toLowerCase()).add(secret.toUpperCase());
  return [...forms].filter((form) => form !== '');
}

/** The secret's bytes in the encodings a tool may hand them on in: UTF-8, UTF-16LE, UTF-16BE. */
function byteForms(secret: string): Buffer[] {
  const le = Buffer.from(secret, 'utf16le');
  const be = Buffer.from(le).swap16();
  return [Buffer.from(secret), le, be];
}

/** Where `secret` survives in `text` (a description of the path and form), or `undefined`. */
export function findLeak(text: string, secret: string, depth = 0, at = 'text'): string | undefined {
  for (const form of encodedForms(secret)) {
    if (text.includes(form)) return `${at} holds ${JSON.stringify(form)}`;
  }
  // As hex, or inside base64 text (`Basic` credentials) at any alignment: any 8 bytes of a long secret.
  const lower = text.toLowerCase();
  const long = Buffer.byteLength(secret) >= 12;
  const runs = long ? (text.match(/[A-Za-z0-9+/_-]{12,}/g) ?? []) : [];
  for (const bytes of long ? byteForms(secret) : []) {
    const hex = bytes.toString('hex');
    for (let i = 0; i + 16 <= hex.length; i += 2)
      if (lower.includes(hex.slice(i, i + 16))) return `${at} holds the secret's bytes in hex`;
    for (const run of runs) {
      for (const lead of ['', 'A', 'AA', 'AAA']) {
        const decoded = Buffer.from(lead + run.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
        for (let i = 0; i + 8 <= bytes.length; i++) {
          if (decoded.includes(bytes.subarray(i, i + 8))) return `${at} holds the secret in base64: ${run}`;
        }
      }
    }
  }
  if (depth > 8) return undefined;
  const decoded: Array<[string, string]> = [];
  // Base64 in base64: each run read as text, at each of its alignments.
  for (const run of runs) {
    for (const lead of ['', 'A', 'AA', 'AAA']) {
      const bytes = Buffer.from(lead + run.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
      const inner = bytes.toString('latin1');
      if (/[A-Za-z0-9+/_-]{12,}/.test(inner)) decoded.push([inner, `${at} base64-decoded`]);
    }
  }
  try {
    const parsed: unknown = JSON.parse(text);
    const inner = findInValue(parsed, secret, depth + 1, `${at} as JSON`);
    if (inner !== undefined) return inner;
  } catch {
    // not JSON
  }
  try {
    const body = JSON.parse(`"${text}"`) as string;
    if (body !== text) decoded.push([body, `${at} as a JSON string body`]);
  } catch {
    // not a JSON string body
  }
  try {
    const plain = decodeURIComponent(text);
    if (plain !== text) decoded.push([plain, `${at} percent-decoded`]);
  } catch {
    // not percent-encoded
  }
  for (const match of text.matchAll(/data:application\/octet-stream;base64,([A-Za-z0-9+/=]*)/g)) {
    decoded.push([Buffer.from(match[1] as string, 'base64').toString('utf8'), `${at} base64 data`]);
  }
  for (const [inner, where] of decoded) {
    const found = findLeak(inner, secret, depth + 1, where);
    if (found !== undefined) return found;
  }
  return undefined;
}

function findInValue(value: unknown, secret: string, depth: number, at: string): string | undefined {
  if (typeof value === 'string') return findLeak(value, secret, depth, at);
  if (typeof value === 'number') return String(value).includes(secret) ? `${at} = ${value}` : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, item] of Object.entries(value)) {
    const found =
      findLeak(key, secret, depth, `${at} key ${JSON.stringify(key)}`) ??
      findInValue(item, secret, depth, `${at}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

type AnyTool = ConstructorParameters<typeof ToolRegistry>[0] extends Iterable<infer T> | undefined
  ? T
  : never;

/** Runs one call of `execute` through a CallRunner with `rules`; everything that left it, as text. */
export function runLeaking(
  rules: RedactRule[],
  execute: () => unknown,
): { texts: string[]; frame: ClientFrame } {
  const sent: ClientFrame[] = [];
  const texts: string[] = [];
  const record = (object: Record<string, unknown>, message: string) => {
    texts.push(JSON.stringify(object), message);
  };
  const logger: Logger = { debug: record, info: record, warn: record, error: record };
  const redactor = new Redactor(rules);
  const leaky = tool({ name: 'leaky', description: 'Returns what it is given.', execute }) as AnyTool;
  const runner = new CallRunner({
    registry: new ToolRegistry([leaky]),
    maxConcurrency: 4,
    maxQueue: 10,
    highWaterMarkBytes: 1_048_576,
    socket: {
      send: (frame) => {
        sent.push(frame);
        return true;
      },
      writable: true,
      bufferedAmount: 0,
      maxPayloadBytes: 1_048_576,
    },
    contextFor: () => undefined,
    onApproval: undefined,
    extend: {},
    redactor,
    logger: redactingLogger(logger, redactor),
    events: {
      toolCall() {},
      toolResult: (info) => texts.push(JSON.stringify(info)),
      approvalRequested() {},
      widgetInvalid: (info) => texts.push(JSON.stringify(info)),
    },
  });
  runner.receive({ type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'leaky', arguments: {} });
  const frame = sent.find((item) => item.type === 'tool_result');
  if (frame === undefined) throw new Error('no result was sent synchronously');
  texts.push(JSON.stringify(frame));
  return { texts, frame };
}
