import { inspect } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { OptionsError } from '../src/errors';
import { redactingLogger, scopedLogger } from '../src/logger';
import { escapeRegExp, MAX_LEARNED_SECRETS, MAX_REDACT_DEPTH, REDACTED, Redactor } from '../src/redact';

describe('Redactor', () => {
  it('takes string rules of any length, and ignores the empty string', () => {
    expect(new Redactor(['e']).text('key e')).toBe('k[REDACTED]y [REDACTED]');
    expect(new Redactor(['']).empty).toBe(true);
    expect(new Redactor(['', 'abcd']).text('xabcdx')).toBe(`x${REDACTED}x`);
  });

  it('finds a secret written with JSON escapes, once or twice, \\u in either case, \\x, \\u{…} or %XX', () => {
    const redactor = new Redactor(['a"b\\c\nd é😀']);
    for (const text of [
      'a"b\\c\nd é😀',
      'a\\"b\\\\c\\nd \\u00e9\\uD83D\\uDE00',
      'a\\\\\\"b\\\\\\\\c\\\\nd é😀',
      '\\u0061\\u0022\\u0062\\u005C\\u0063\\u000A\\u0064\\u0020\\u00E9\\ud83d\\ude00',
      'a\\x22b\\x5cc\\x0ad\\x20\\u{e9}\\u{1F600}',
      'a%22b%5Cc%0Ad+%C3%A9%F0%9F%98%80',
    ]) {
      expect(redactor.text(`<${text}>`), text).toBe(`<${REDACTED}>`);
    }
  });

  it("finds a secret escaped and then percent-encoded: an escape's backslash written %5C or %255C", () => {
    const key = 'sk-AbC/dEf+gHi=jKl"q';
    const redactor = new Redactor([key]);
    const slashEscaped = key.replaceAll('/', '\\/');
    for (const text of [
      encodeURIComponent(slashEscaped),
      encodeURIComponent(encodeURIComponent(slashEscaped)),
      encodeURIComponent(JSON.stringify(key).slice(1, -1)),
      encodeURIComponent(JSON.stringify(JSON.stringify(key).slice(1, -1)).slice(1, -1)),
      encodeURIComponent(key.replaceAll('/', '\\u002f')),
      encodeURIComponent(slashEscaped).replace(/%[0-9A-F]{2}/g, (byte) => byte.toLowerCase()),
    ]) {
      expect(redactor.text(`<${text}>`), text).toBe(`<${REDACTED}>`);
    }
    // A run of encoded backslashes with no secret after it is left as it is, and costs linear time.
    const run = `${'%5C'.repeat(20_000)}sk-AbC`;
    expect(redactor.text(run)).toBe(run);
  });

  it('finds a secret percent-encoded twice (a URL inside a URL), in any mix with the other forms', () => {
    const secret = 'a"b\\c\nd é😀 sk+/=';
    const redactor = new Redactor([secret]);
    const twice = encodeURIComponent(encodeURIComponent(secret));
    const formTwice = encodeURIComponent(new URLSearchParams({ k: secret }).toString()).slice('k%3D'.length);
    for (const text of [
      twice,
      twice.toLowerCase(),
      formTwice,
      `a%2522b%5Cc%250Ad%20%25C3%25A9%25F0%259F%2598%2580%2520sk%252B%2F%253D`,
    ]) {
      expect(redactor.text(`<${text}>`), text).toBe(`<${REDACTED}>`);
    }
    expect(
      new Redactor(['sk-live-Zq8+Ab/9xY=Tk3']).text(
        'next=https%253A%252F%252Fx%252F%253Fk%253Dsk-live-Zq8%252BAb%252F9xY%253DTk3',
      ),
    ).toBe(`next=https%253A%252F%252Fx%252F%253Fk%253D${REDACTED}`);
  });

  it('finds a secret with spaces form-encoded (+ for each space) in a text with no % or backslash', () => {
    const redactor = new Redactor(['my key has spaces']);
    expect(redactor.text('q=my+key+has+spaces&x=1')).toBe(`q=${REDACTED}&x=1`);
    expect(redactor.text('"my+key+has+spaces"')).toBe(`"${REDACTED}"`);
    // A secret without a space: a plus stays a plus.
    expect(new Redactor(['sk+live']).text('a+b sk+live')).toBe(`a+b ${REDACTED}`);
  });

  it('finds a secret a tool wrote as base64, base64url or hex inside a text, at any alignment', () => {
    const secret = 'sk-live-0123456789abcdef';
    const redactor = new Redactor([secret]);
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const b64url = (text: string) => Buffer.from(text).toString('base64url');
    for (const encoded of [
      b64(secret),
      b64(`user:${secret}`),
      b64(`${secret}:x`),
      b64(`ab${secret}cdef`),
      b64url(`?>${secret}~`),
      b64(`ключ ${secret}`),
    ]) {
      const text = `Authorization: Basic ${encoded}`;
      const out = redactor.text(text);
      expect(out, encoded).toContain(REDACTED);
      // What is left of the encoding holds a few bits of the secret at most: no 3 bytes of it decode from it.
      const left = out.replace('Authorization: Basic ', '').split(REDACTED).join('');
      expect(Buffer.from(left, 'base64').toString('latin1')).not.toMatch(/live|0123|cdef/);
    }
    // Hex, in either case, alone or among other bytes.
    const hex = Buffer.from(`:${secret};`).toString('hex');
    for (const text of [hex, hex.toUpperCase()]) expect(redactor.text(`dump ${text}`)).toContain(REDACTED);
    expect(redactor.text(`dump ${hex}`)).not.toContain(Buffer.from('live-0123').toString('hex'));
    // In JSON and in a redacted copy of a value alike.
    expect(redactor.text(JSON.stringify({ token: b64(secret) }))).toBe(`{"token":"${REDACTED}"}`);
    expect(redactor.value({ headers: [`Basic ${b64(`u:${secret}`)}`] })).toEqual({
      headers: [expect.stringContaining(REDACTED)],
    });
    // A short secret's base64 forms would match by chance: only the secret itself is looked for.
    const short = new Redactor(['sk-live-01']);
    expect(short.text(b64('sk-live-01'))).toBe(b64('sk-live-01'));
    // Other base64 is left as it is.
    const other = b64('sk-live-0123456789abcdeX');
    expect(redactor.text(`${other} ${b64('hello world, nothing secret here')}`)).not.toContain(REDACTED);
  });

  it('finds a secret lowercased or uppercased (a hostname, a normalised header), in every form', () => {
    const key = 'sk-Live-AbC0123456789xYz';
    const redactor = new Redactor([key]);
    const lower = key.toLowerCase();
    const upper = key.toUpperCase();
    for (const text of [
      `getaddrinfo ENOTFOUND ${lower}.example.com`,
      `X-API-KEY: ${upper}`,
      encodeURIComponent(`https://${lower}.example.com/`),
      JSON.stringify(JSON.stringify({ host: lower })),
    ]) {
      expect(redactor.text(`<${text}>`), text).not.toMatch(/live-abc|LIVE-ABC/i);
    }
    expect(redactor.text(`host ${lower}.example.com`)).toBe(`host ${REDACTED}.example.com`);
    // A secret with no letters, or shorter than SHORT_SECRET, has no other case to look for.
    expect(new Redactor(['Abc']).text('abc ABC Abc')).toBe(`abc ABC ${REDACTED}`);
  });

  it("finds a secret's UTF-16LE and UTF-16BE bytes in hex, base64 and base64url, at any alignment", () => {
    const key = 'sk-live-0123456789abcdef';
    const redactor = new Redactor([key]);
    const be = (text: string) => Buffer.from(text, 'utf16le').swap16();
    for (const encoded of [
      Buffer.from(key, 'utf16le').toString('base64'),
      // PowerShell's -EncodedCommand: a script, UTF-16LE, base64.
      Buffer.from(`$env:KEY = '${key}'; run`, 'utf16le').toString('base64'),
      Buffer.from(`x${key}`, 'utf16le').toString('base64url'),
      Buffer.from(`xy${key}`, 'utf16le').toString('base64'),
      Buffer.from(key, 'utf16le').toString('hex'),
      Buffer.from(key, 'utf16le').toString('hex').toUpperCase(),
      be(`ab${key}`).toString('base64'),
      be(key).toString('hex'),
    ]) {
      const out = redactor.text(`powershell -EncodedCommand ${encoded}`);
      expect(out, encoded).toContain(REDACTED);
      const left = out.replace('powershell -EncodedCommand ', '').split(REDACTED).join('');
      for (const reading of [
        left,
        Buffer.from(left, 'base64').toString('utf16le'),
        be(left).toString('utf16le'),
      ]) {
        expect(reading, encoded).not.toMatch(/live|0123|cdef/);
      }
    }
  });

  it('finds a secret percent-encoded three or more times (a URL in a URL in a URL), up to 8 times', () => {
    const key = 'sk-live/0123+abc=def';
    const redactor = new Redactor([key]);
    let text = `https://x.example/cb?key=${encodeURIComponent(key)}`;
    for (let times = 2; times <= 8; times++) {
      text = `https://y.example/next?u=${encodeURIComponent(text)}`;
      expect(redactor.text(text), `${times + 1} times`).toContain(REDACTED);
      expect(redactor.text(text)).not.toContain('0123');
    }
    // Escaped, then percent-encoded three times: the escape's backslash is `%25255C`.
    const escaped = JSON.stringify(key.replace('/', '\\/'));
    const thrice = encodeURIComponent(encodeURIComponent(encodeURIComponent(escaped)));
    expect(redactor.text(thrice)).toMatch(new RegExp(`^%252522${escapeRegExp(REDACTED)}%252522$`));
    // A run of %25 with no secret after it is left as it is.
    const run = `${'%25'.repeat(20_000)}sk-live`;
    expect(redactor.text(run)).toBe(run);
  });

  it("finds a secret's base64 inside base64 (credentials in a base64 config), at any alignment", () => {
    const key = 'sk-live-0123456789abcdef';
    const redactor = new Redactor([key]);
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    for (const inner of [b64(`user:${key}`), Buffer.from(`u:${key}`).toString('base64url'), b64(key)]) {
      for (const outer of [
        b64(JSON.stringify({ auths: { 'r.example': { auth: inner } } })),
        Buffer.from(`a${inner}`).toString('base64url'),
        b64(`ab${inner}`),
      ]) {
        const out = redactor.text(`data: ${outer}`);
        expect(out, outer).toContain(REDACTED);
        const left = out.replace('data: ', '').split(REDACTED).join('');
        const once = Buffer.from(left, 'base64').toString('latin1');
        const twice = once
          .match(/[A-Za-z0-9+/_-]{4,}/g)
          ?.map((run) => Buffer.from(run, 'base64').toString('latin1'));
        expect([once, ...(twice ?? [])].join(' '), outer).not.toMatch(/live-0123|456789|abcdef/);
      }
    }
  });

  it('leaves ordinary text, other base64 and other keys as they are', () => {
    const redactor = new Redactor(['sk-live-0123456789abcdef']);
    for (const text of [
      'Hello, world: nothing secret here; 100% of 25% is %25.',
      Buffer.from('sk-live-0123456789abcdeX', 'utf16le').toString('base64'),
      Buffer.from(Buffer.from('sk-live-0123456789abcdeX').toString('base64')).toString('base64'),
      'SK-LIVE-0123456789ABCDEX sk-live-0123456789abcdeX',
      encodeURIComponent(encodeURIComponent(encodeURIComponent('sk-live-0123456789abcdeX'))),
    ]) {
      expect(redactor.text(text), text).toBe(text);
    }
  });

  it('applies RegExp rules globally, never sticky, as written', () => {
    expect(new Redactor([/sk-\d+/y]).text('a sk-1 b sk-22')).toBe(`a ${REDACTED} b ${REDACTED}`);
  });

  it('picks a replacement no rule matches in, and no rule can form at its edges', () => {
    expect(new Redactor(['act']).replacement).toBe('[REDACTED]');
    expect(new Redactor([']x']).replacement).toBe('<redacted>');
    expect(new Redactor([']x']).text(']xxxx')).not.toContain(']x');
    expect(new Redactor(['[', '*', '<']).replacement).toBe('###');
    expect(new Redactor([/[a-z]/]).replacement).toBe('[REDACTED]');
    expect(new Redactor([/[a-z]/i]).replacement).toBe('***');
  });

  it('gives the replacement alone for a text a pattern keeps matching in', () => {
    const redactor = new Redactor([/(?<=\*)\*|\*(?=\*)/]);
    expect(redactor.text('a**b').includes('**')).toBe(false);
  });

  it('copies values with every string and key redacted, and nothing passed on unread', () => {
    const redactor = new Redactor(['s3cret']);
    let deep: unknown = 's3cret';
    for (let i = 0; i < MAX_REDACT_DEPTH + 10; i++) deep = { s3cret: deep };
    const cyclic: Record<string, unknown> = { note: 's3cret' };
    cyclic.self = cyclic;
    const copy = redactor.value({ deep, cyclic, n: 1234, pin: 4_100_000 }) as Record<string, unknown>;
    const text = JSON.stringify(copy);
    expect(text).not.toContain('s3cret');
    expect(text).toContain('"[Too deep]"');
    expect(copy.cyclic).toEqual({ note: REDACTED, self: '[Circular]' });
    expect(new Redactor(['4100']).value({ pin: 4_100_000, other: 12 })).toEqual({ pin: REDACTED, other: 12 });
  });

  it('copies a Map as its entries and a Set as its values, and drops a symbol whose description holds a secret', () => {
    const redactor = new Redactor(['s3cret']);
    const kept = Symbol('plain');
    const copy = redactor.value({
      map: new Map<unknown, unknown>([
        ['k', 's3cret'],
        [2, { s3cret: 1 }],
      ]),
      set: new Set(['a s3cret', 'b']),
      tagged: Symbol('token s3cret'),
      kept,
    });
    expect(copy).toEqual({
      map: [
        ['k', REDACTED],
        [2, { [REDACTED]: 1 }],
      ],
      set: [`a ${REDACTED}`, 'b'],
      tagged: REDACTED,
      kept,
    });
  });

  it('redacts a boxed string or number as the primitive JSON writes, in a value and in an error field', () => {
    const redactor = new Redactor(['s3cret', /\b4242\b/]);
    // JSON writes `new String('…')` as the string: read as an object, its keys are its characters, one each.
    expect(redactor.holds(new String('a s3cret'))).toBe(true);
    expect(
      redactor.value({ text: new String('a s3cret'), id: new Number(4242), plain: new String('b') }),
    ).toEqual({
      text: `a ${REDACTED}`,
      id: REDACTED,
      plain: 'b',
    });
    const error = Object.assign(new Error('failed'), { detail: new String('a s3cret') });
    const copy = redactor.error(error);
    expect(copy).not.toBe(error);
    expect((copy as unknown as { detail: unknown }).detail).toBe(`a ${REDACTED}`);
    expect(inspect(copy)).not.toContain('s3cret');
  });

  it('redacts what console.log prints of an error field: Headers, URLSearchParams, fields a toJSON leaves out', () => {
    const redactor = new Redactor(['s3cret']);
    const fields = {
      headers: new Headers({ authorization: 'Bearer s3cret' }),
      query: new URLSearchParams({ key: 's3cret' }),
      config: { token: 's3cret', toJSON: () => ({ token: 'hidden' }) },
    };
    for (const [name, field] of Object.entries(fields)) {
      expect([name, redactor.holds(field)]).toEqual([name, true]);
      const error = Object.assign(new Error('request failed'), { [name]: field });
      expect([name, inspect(redactor.error(error)).includes('s3cret')]).toEqual([name, false]);
    }
    expect(redactor.value(fields)).toEqual({
      headers: [['authorization', `Bearer ${REDACTED}`]],
      query: [['key', REDACTED]],
      config: { token: 'hidden' },
    });
  });

  it('copies an Error with its stack, code, cause chain and inner errors, redacted', () => {
    const redactor = new Redactor(['s3cret']);
    const inner = Object.assign(new Error('inner s3cret'), { code: 'E_s3cret' });
    const outer = new AggregateError([new Error('one s3cret')], 'outer s3cret', { cause: inner });
    const copy = redactor.value({ error: outer as unknown }) as { error: Record<string, unknown> };
    expect(copy.error).toMatchObject({
      name: 'AggregateError',
      message: `outer ${REDACTED}`,
      cause: { name: 'Error', message: `inner ${REDACTED}`, code: `E_${REDACTED}` },
      errors: [{ message: `one ${REDACTED}` }],
    });
    expect(String(copy.error.stack)).toContain('AggregateError');
    expect(JSON.stringify(copy)).not.toContain('s3cret');
  });

  it('redacts an error and its causes into a copy, leaving the errors it was given unchanged', () => {
    const redactor = new Redactor(['s3cret']);
    const cause = Object.assign(new TypeError('cause s3cret'), { code: 'E_s3cret' });
    const original = new OptionsError('invalid_option', 'top s3cret', { cause });
    const stack = original.stack;
    const error = redactor.error(original);
    expect(error).not.toBe(original);
    expect(error).toBeInstanceOf(OptionsError);
    expect(error).toMatchObject({ name: 'OptionsError', code: 'invalid_option', message: `top ${REDACTED}` });
    expect(error.stack).not.toContain('s3cret');
    expect(error.cause).toBeInstanceOf(TypeError);
    expect(error.cause).toMatchObject({ message: `cause ${REDACTED}`, code: `E_${REDACTED}` });
    expect([original.message, original.stack, original.cause]).toEqual(['top s3cret', stack, cause]);
    expect([cause.message, cause.code]).toEqual(['cause s3cret', 'E_s3cret']);
  });

  it("redacts a cause's other fields, such as the hostname of getaddrinfo ENOTFOUND", () => {
    const redactor = new Redactor(['sk-live-Ab3dEf9hIjKl']);
    const cause = Object.assign(new Error('getaddrinfo ENOTFOUND sk-live-ab3def9hijkl.invalid'), {
      code: 'ENOTFOUND',
      hostname: 'sk-live-ab3def9hijkl.invalid',
      details: { url: 'ws://sk-live-Ab3dEf9hIjKl.invalid/' },
      port: 443,
    });
    const error = redactor.error(new Error('host not found', { cause }));
    expect(error.cause).toMatchObject({
      code: 'ENOTFOUND',
      hostname: `${REDACTED}.invalid`,
      details: { url: `ws://${REDACTED}.invalid/` },
      port: 443,
    });
    expect(cause.hostname).toBe('sk-live-ab3def9hijkl.invalid');
    expect(inspect(error, { depth: 5 }).toLowerCase()).not.toContain('sk-live');
  });

  it('gives back the same error, its causes and a plain-object cause, when nothing needs redacting', () => {
    const redactor = new Redactor(['s3cret']);
    const reason = { why: 'user gave up', at: 3 };
    const error = new Error('aborted', { cause: reason });
    const stack = error.stack;
    expect(redactor.error(error)).toBe(error);
    expect(error.cause).toBe(reason);
    expect(error.stack).toBe(stack);
    expect(redactor.error(reason)).toBe(reason);
  });

  it('copies only the errors of a chain that lead to a secret', () => {
    const redactor = new Redactor(['s3cret']);
    const clean = new Error('clean');
    const leaked = new Error('leaked s3cret', { cause: clean });
    const top = new AggregateError([clean, leaked, { key: 's3cret' }], 'several', { cause: leaked });
    const copy = redactor.error(top);
    expect(copy).not.toBe(top);
    expect(copy).toBeInstanceOf(AggregateError);
    expect(copy.cause).not.toBe(leaked);
    expect((copy.cause as Error).cause).toBe(clean);
    expect(copy.errors[0]).toBe(clean);
    expect(copy.errors[1]).toBe(copy.cause);
    expect(copy.errors[2]).toEqual({ key: REDACTED });
    expect(top.errors[2]).toEqual({ key: 's3cret' });
    expect(leaked.message).toBe('leaked s3cret');
  });

  it('copies a plain object holding a secret, and a frozen error, without changing either', () => {
    const redactor = new Redactor(['s3cret']);
    const reason = Object.freeze({ why: 'token s3cret expired' });
    expect(redactor.error(reason)).toEqual({ why: `token ${REDACTED} expired` });
    expect(reason.why).toBe('token s3cret expired');
    const frozen = Object.freeze(new RangeError('frozen s3cret'));
    const copy = redactor.error(frozen);
    expect(copy).toBeInstanceOf(RangeError);
    expect(copy.message).toBe(`frozen ${REDACTED}`);
    expect(frozen.message).toBe('frozen s3cret');
  });

  it('copies a DOMException as one, with its name and code', () => {
    const redactor = new Redactor(['s3cret']);
    const original = new DOMException('stopped: s3cret', 'AbortError');
    const copy = redactor.error(original);
    expect(copy).toBeInstanceOf(DOMException);
    expect([copy.name, copy.message, copy.code]).toEqual(['AbortError', `stopped: ${REDACTED}`, 20]);
    expect(original.message).toBe('stopped: s3cret');
  });

  it.each([
    [
      'a Proxy whose getPrototypeOf trap throws',
      () =>
        new Proxy(new Error('sk-live-1'), {
          getPrototypeOf(): never {
            throw new Error('no prototype');
          },
        }),
    ],
    [
      'a Proxy whose ownKeys trap throws',
      () =>
        new Proxy(new Error('sk-live-1'), {
          ownKeys(): never {
            throw new Error('no keys');
          },
        }),
    ],
    [
      'a revoked Proxy',
      () => {
        const { proxy, revoke } = Proxy.revocable(new Error('sk-live-1'), {});
        revoke();
        return proxy;
      },
    ],
  ])('gives "[Unreadable]" for a thrown value it cannot read: %s', (_, make) => {
    expect(new Redactor(['sk-live-1']).error(make())).toBe('[Unreadable]');
  });

  it('finds a secret in bytes by their UTF-16 reading: little- or big-endian, from an even or an odd byte', () => {
    const key = 'sk-live-0123';
    const redactor = new Redactor([key]);
    const le = (text: string) => new Uint8Array(Buffer.from(text, 'utf16le'));
    const be = (text: string) => new Uint8Array(Buffer.from(text, 'utf16le').swap16());
    for (const [name, bytes] of [
      ['LE', le(`\ufeffREG KEY=${key}\r\n`)],
      ['LE from an odd byte', new Uint8Array([0x7f, ...le(`k=${key}`)])],
      ['LE lowercased', le(`host ${key.toUpperCase()}`)],
      ['BE', be(`\ufeffkey ${key}\n`)],
      ['BE from an odd byte', new Uint8Array([1, ...be(`k=${key};`)])],
    ] as const) {
      expect(redactor.bytes(bytes), name).toBe(true);
    }
    expect(redactor.bytes(le('sk-live-0124 other text'))).toBe(false);
    // Where the runtime has no TextDecoder, bytes are read as UTF-8 only.
    vi.stubGlobal('TextDecoder', undefined);
    try {
      expect(redactor.bytes(le(`k=${key}`))).toBe(false);
      expect(redactor.bytes(new TextEncoder().encode(`k=${key}`))).toBe(true);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('finds a secret in bytes by their UTF-8 reading', () => {
    const redactor = new Redactor(['ключ']);
    expect(redactor.bytes(new TextEncoder().encode('\u00ff ключ'))).toBe(true);
    expect(redactor.bytes(new Uint8Array([0xd0, 0xba, 0xff]).buffer)).toBe(false);
  });
});

describe('redactingLogger', () => {
  it('redacts messages, field values and field names, at any depth', () => {
    const lines: string[] = [];
    const record = (object: Record<string, unknown>, message: string) =>
      lines.push(JSON.stringify(object) + message);
    const logger = redactingLogger(
      { debug: record, info: record, warn: record, error: record },
      new Redactor(['pa"ss']),
    );
    let deep: Record<string, unknown> = { leaf: 'pa"ss' };
    for (let i = 0; i < 100; i++) deep = { next: deep };
    logger.warn({ 'pa"ss': 1, deep, error: new Error('pa"ss failed') }, 'login with pa"ss');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('pa\\"ss');
    expect(lines[0]).not.toContain('pa"ss');
  });

  it("takes what a pino logger's methods take, redacted, and loses no line a tool's JavaScript writes", () => {
    const lines: unknown[][] = [];
    const record = (...args: unknown[]) => lines.push(args);
    const raw = { debug: record, info: record, warn: record, error: record };
    const logger = scopedLogger(raw, { callId: 'c1' }, new Redactor(['hunter2']));
    // The forms pino takes, typed as `ctx.logger` has them (CallLogger), and one a JavaScript tool may write.
    logger.info('message only');
    logger.info('rows: %d of %s (%j) 100%%', 4, 'hunter2', { a: 1 });
    logger.info('message first', { rows: 4 }, 'and more');
    logger.info({ only: 1 });
    const boom = new Error('boom hunter2');
    logger.warn(boom);
    logger.warn(boom, 'export failed');
    logger.info({ rows: 3 }, 'exported');
    expect(lines.map((line) => line.slice(1))).toEqual([
      ['message only'],
      ['rows: 4 of [redacted] ({"a":1}) 100%'],
      ['message first and more'],
      [],
      ['boom [redacted]'],
      ['export failed'],
      ['exported'],
    ]);
    expect(lines.map((line) => line[0])).toMatchObject([
      { callId: 'c1' },
      { callId: 'c1' },
      { callId: 'c1', rows: 4 },
      { callId: 'c1', only: 1 },
      { callId: 'c1', err: { message: 'boom [redacted]' } },
      { callId: 'c1', err: { message: 'boom [redacted]' } },
      { callId: 'c1', rows: 3 },
    ]);
    expect(JSON.stringify(lines)).not.toContain('hunter2');
  });
});

describe('Redactor on long texts and many secrets', () => {
  const key = 'sk-live-AbC/dEf"gh+ij é😀 0123';
  const escapes = (char: string): string[] => {
    const unit = (code: number) => code.toString(16).padStart(4, '0');
    const forms = [
      char
        .split('')
        .map((u) => `\\u${unit(u.charCodeAt(0))}`)
        .join(''),
      encodeURIComponent(char),
      encodeURIComponent(encodeURIComponent(char)),
      `\\u{${char.codePointAt(0)?.toString(16).toUpperCase()}}`,
    ];
    if (char.length === 1 && char.charCodeAt(0) < 0x100) forms.push(`\\x${char.charCodeAt(0).toString(16)}`);
    if (char === '"' || char === '/') forms.push(`\\${char}`, `%5C${encodeURIComponent(char)}`);
    return forms;
  };

  it('finds a secret with any one character escaped, at the start, the end or the middle of a text', () => {
    const redactor = new Redactor([key]);
    const chars = [...key];
    chars.forEach((char, i) => {
      for (const form of escapes(char)) {
        const written = [...chars.slice(0, i), form, ...chars.slice(i + 1)].join('');
        for (const [text, expected] of <Array<[string, string]>>[
          [written, REDACTED],
          [`${written}\\n`, `${REDACTED}\\n`],
          [`%20${written}`, `%20${REDACTED}`],
          [`{"a":"x\\"${written}\\"y"}`, `{"a":"x\\"${REDACTED}\\"y"}`],
        ]) {
          expect(redactor.text(text), `${i}: ${text}`).toBe(expected);
        }
      }
    });
  });

  it('finds a secret escaped from its first character on, or as written up to its last', () => {
    const redactor = new Redactor([key]);
    const chars = [...key];
    for (let i = 0; i <= chars.length; i++) {
      const head = chars.slice(0, i).join('');
      const tail = chars
        .slice(i)
        .map((char) => escapes(char)[0])
        .join('');
      expect(redactor.text(`<${head}${tail}>`), `${i}`).toBe(`<${REDACTED}>`);
      expect(redactor.text(`${tail}${head}`)).toBe(tail === '' || head === '' ? REDACTED : `${tail}${head}`);
    }
  });

  it('replaces 16 learned secrets in one JSON text, each in its own form, and overlapping ones as one span', () => {
    const redactor = new Redactor(['own-secret-0001']);
    const keys = Array.from({ length: 16 }, (_, n) => `sk-learned-${String(n).padStart(2, '0')}-AbCdEfGh`);
    for (const learned of keys) redactor.learn(learned);
    const filler = 'The path C:\\temp\\x and 100% of "quotes" \n'.repeat(40);
    const text = JSON.stringify({
      a: `${filler}${keys[15]}`,
      b: `${encodeURIComponent(`${keys[3]}`)}${filler}`,
      c: `${(keys[7] ?? '').toLowerCase()}${(keys[8] ?? '').toUpperCase()}`,
      d: JSON.stringify({ e: `own-secret-0001${keys[0]}` }),
      f: `${(keys[9] ?? '').slice(0, -1)}!`,
    });
    expect(JSON.parse(redactor.text(text))).toEqual({
      a: `${filler}${REDACTED}`,
      b: `${REDACTED}${filler}`,
      c: `${REDACTED}${REDACTED}`,
      d: JSON.stringify({ e: `${REDACTED}${REDACTED}` }),
      f: `${(keys[9] ?? '').slice(0, -1)}!`,
    });
    // Overlapping secrets, one of them escaped, are one span.
    const overlap = new Redactor(['abcd-efgh-ijkl', 'efgh-ijkl-mnop']);
    expect(overlap.text('x abcd-\\u0065fgh-ijkl-mnop y')).toBe(`x ${REDACTED} y`);
    expect(overlap.text('x abcd-efgh-ijkl-mnop y')).toBe(`x ${REDACTED} y`);
  });

  it('gives back a long text holding no secret as it is, whatever its escapes and leads', () => {
    const redactor = new Redactor([key]);
    for (let n = 0; n < 15; n++) redactor.learn(`${key}-${n}`);
    const text = `${'\\\\u0073k-live %73k-live %25%2525 \\x73 + \\u{73} '.repeat(200)}\\u00%2%\\`;
    expect(redactor.text(text)).toBe(text);
    const nearly = `${key.slice(0, -1)}X ${encodeURIComponent(key.slice(1))}`;
    expect(redactor.text(nearly)).toBe(nearly);
  });

  it('finds a secret that begins with a backslash, holds % or +, or looks like an escape', () => {
    expect(new Redactor(['\\secret-path']).text('a \\\\secret-path b')).toBe(`a ${REDACTED} b`);
    expect(new Redactor(['\\secret-path']).text('%5Csecret-path')).toBe(REDACTED);
    expect(new Redactor(['100%+key']).text('x=100%25%2Bkey')).toBe(`x=${REDACTED}`);
    // Leads inside a secret as written, near the text's start: one span, from the start.
    expect(new Redactor(['%+abcde% abZab']).text('%+abcde% abzab')).toBe(REDACTED);
    expect(new Redactor(['u0041-key-1']).text('\\u0041-key-1')).toBe(`\\${REDACTED}`);
    expect(new Redactor(['Au0041-key']).text('\\x41u0041-key')).toBe(REDACTED);
  });
});

describe('Redactor with rules that overlap', () => {
  it('replaces the whole span two rules cover, whichever matches first', () => {
    // The key `k` sits inside what the RegExp matches: replacing it first must not leave `-abc123` behind.
    const redactor = new Redactor(['k', /sk-[a-z0-9]+/]);
    expect(redactor.text('token sk-abc123 ok')).toBe('to[redacted]en [redacted] o[redacted]');
    expect(redactor.inString('sk-abc123')).toBe('[redacted]');
  });

  it('replaces the whole span of two string rules that overlap', () => {
    expect(new Redactor(['abcd', 'cdef']).text('xabcdefx')).toBe('x[redacted]x');
  });
});

describe('Redactor.learn', () => {
  it('adds a secret after the redactor is made, searched for in every form, or as a whole value', () => {
    const redactor = new Redactor([]);
    expect(redactor.empty).toBe(true);
    expect(redactor.learn('secret-key-1')).toBe(true);
    expect(redactor.learn('secret-key-1')).toBe(false);
    expect(redactor.empty).toBe(false);
    expect(redactor.text('a secret-key-1 and %73ecret-key-1')).toBe(`a ${REDACTED} and ${REDACTED}`);
    expect(redactor.learn('k9', { whole: true })).toBe(true);
    expect(redactor.value({ key: 'k9', text: 'k9x' })).toEqual({ key: REDACTED, text: 'k9x' });
    expect(redactor.perString).toBe(true);
  });

  it('is known to every redactor made from it with `with`, before and after it was made', () => {
    const base = new Redactor(['static-rule']);
    const before = base.with(['call-value']);
    base.learn('learned-key-1');
    const after = base.with(['other-value']);
    const text = 'static-rule call-value learned-key-1 other-value';
    expect(before.text(text)).toBe(`${REDACTED} ${REDACTED} ${REDACTED} other-value`);
    expect(after.text(text)).toBe(`${REDACTED} call-value ${REDACTED} ${REDACTED}`);
    base.learn('learned-key-2');
    expect(before.text('learned-key-2')).toBe(REDACTED);
    // The base itself never learns what its copies were given.
    expect(base.text(text)).toBe(`${REDACTED} call-value ${REDACTED} other-value`);
  });

  it('keeps the 16 latest secrets it learned, never forgetting its own rules', () => {
    const redactor = new Redactor(['own-rule-0']);
    for (let n = 1; n <= MAX_LEARNED_SECRETS + 1; n++) redactor.learn(`learned-${n}`);
    expect(redactor.text('learned-1')).toBe('learned-1');
    expect(redactor.text(`learned-2 learned-${MAX_LEARNED_SECRETS + 1} own-rule-0`)).toBe(
      `${REDACTED} ${REDACTED} ${REDACTED}`,
    );
    // Learning a known secret again makes it the newest.
    redactor.learn('learned-2');
    redactor.learn('learned-next');
    expect(redactor.text('learned-2 learned-3')).toBe(`${REDACTED} learned-3`);
  });

  it('changes its replacement when a learned secret would match inside it', () => {
    const redactor = new Redactor([]);
    expect(redactor.replacement).toBe(REDACTED);
    redactor.learn('dact');
    // `dact` is in `[redacted]` and `<redacted>`, its uppercase `DACT` in `[REDACTED]`.
    expect(redactor.replacement).toBe('***');
    expect(redactor.text('dact')).toBe('***');
  });
});
