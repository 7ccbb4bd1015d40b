/**
 * An options object is a plain object (`{ … }`, of any realm, or `Object.create(null)`): a URL, a string, an
 * array, a Map or a class's instance given where options go is refused by every public entry with one wording,
 * `<owner>: options must be an object, got a URL`, rather than read as options and refused for a missing field.
 */
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { Agent, Client, invokeTool, OptionsError, tool } from '../../src/index';
import { otelTracing } from '../../src/otel/index';
import { isOptionsObject } from '../../src/tool/check-options';
import { FAKE_URL } from './fake-service';

const echo = tool({ name: 'echo', description: 'Echoes.', execute: () => 'ok' });
const idle = () => new Client({ url: FAKE_URL, apiKey: 'k', tools: [echo] });
const agent = new Agent({ name: 'helper', instructions: 'Help.', tools: [echo] });

class Settings {
  url = FAKE_URL;
  tools = [echo];
}

const NOT_OPTIONS: [string, unknown][] = [
  ['a URL', new URL('ws://127.0.0.1:8787/')],
  ['a Map', new Map()],
  ['a Settings', new Settings()],
  ['an array of 0 items', []],
];

describe('isOptionsObject', () => {
  it('takes plain objects of any realm and with a null prototype', () => {
    expect(isOptionsObject({})).toBe(true);
    expect(isOptionsObject(Object.create(null))).toBe(true);
    expect(isOptionsObject(runInNewContext('({ a: 1 })'))).toBe(true);
  });

  it.each(NOT_OPTIONS)('refuses %s', (_, value) => {
    expect(isOptionsObject(value)).toBe(false);
  });
});

describe('an entry given a non-plain object where its options go', () => {
  it('new Client(): a URL given alone', () => {
    expect(() => new Client(new URL('ws://127.0.0.1:8787/') as never)).toThrow(
      new OptionsError('invalid_options', 'new Client(options): options must be an object, got a URL'),
    );
  });

  it('new Client(): a string given alone (shown without its query)', () => {
    expect(() => new Client('ws://127.0.0.1:8787/?key=secret' as never)).toThrow(
      'new Client(options): options must be an object, got "ws://127.0.0.1:8787/?[redacted]"',
    );
  });

  it.each(NOT_OPTIONS)('refuses %s at every entry, with one wording', async (shown, value) => {
    const tail = `options must be an object, got ${shown}`;
    expect(() => new Client(value as never)).toThrow(`new Client(options): ${tail}`);
    expect(() => tool(value as never)).toThrow(`tool(): ${tail}`);
    expect(() => new Agent(value as never)).toThrow(`new Agent(options): ${tail}`);
    expect(() => agent.asTool(value as never)).toThrow(tail);
    expect(() => otelTracing(value as never)).toThrow(`otelTracing(): ${tail}`);
    await expect(invokeTool(echo, {}, value as never)).rejects.toThrow(`invokeTool(): ${tail}`);
    const client = idle();
    await expect(client.connect(value as never)).rejects.toThrow(`client.connect(): ${tail}`);
    await expect(client.run(agent, 'hi', value as never)).rejects.toThrow(`client.run(): ${tail}`);
    await expect(client.close(value as never)).rejects.toThrow(`client.close(): ${tail}`);
    expect(client.state).toBe('idle');
    await client.close({ drain: false });
  });

  it('refuses a non-plain object as a nested options object', () => {
    expect(
      () => new Client({ url: FAKE_URL, apiKey: 'k', tools: [echo], reconnect: new Map() as never }),
    ).toThrow('new Client(options): reconnect must be false or an object');
  });

  it('takes options with a null prototype and from another realm', async () => {
    const bare = Object.assign(Object.create(null), { url: FAKE_URL, apiKey: 'k', tools: [echo] });
    expect(new Client(bare).state).toBe('idle');
    const foreign = runInNewContext('({ drain: false })');
    await expect(idle().close(foreign)).resolves.toBeUndefined();
  });
});
