/**
 * A tool that throws or returns a hostile value (a Proxy whose traps throw, a revoked Proxy) still ends its call
 * with a result the model reads: through a client against the stub, every inspection of the value (its kind for
 * the result's part, its redaction, its message, its JSON) survives it, and the run goes on.
 */
import { describe, expect, it } from 'vitest';
import { scriptedModel } from '../../server-stub/index';
import type { ToolTracing } from '../../src/client/tracing';
import { Agent, tool } from '../../src/index';
import { recordingLogger } from '../support/recording-logger';
import { useStubClients } from '../support/stub-client';

const { stub, connected } = useStubClients();

const trap = (name: string) => (): never => {
  throw new Error(`${name} trap`);
};

/** How each kind of hostile value is made around `target`. */
const HOSTILE: Record<string, (target: object) => object> = {
  getPrototypeOf: (target) => new Proxy(target, { getPrototypeOf: trap('getPrototypeOf') }),
  get: (target) => new Proxy(target, { get: trap('get') }),
  has: (target) => new Proxy(target, { has: trap('has') }),
  ownKeys: (target) => new Proxy(target, { ownKeys: trap('ownKeys') }),
  getOwnPropertyDescriptor: (target) =>
    new Proxy(target, { getOwnPropertyDescriptor: trap('getOwnPropertyDescriptor') }),
  revoked: (target) => {
    const { proxy, revoke } = Proxy.revocable(target, {});
    revoke();
    return proxy;
  },
};

const REVOKED = (operation: string) => `Cannot perform '${operation}' on a proxy that has been revoked`;

/** Per trap kind: what the model reads when the tool throws a plain object, throws an Error, returns an object. */
const READS: Record<string, { thrownObject: string; thrownError: string; returned: string }> = {
  getPrototypeOf: {
    thrownObject: 'Error running hostile: "[Unserializable Object: getPrototypeOf trap]"',
    thrownError: 'Error running hostile: card declined',
    returned: '"[Unserializable Object: getPrototypeOf trap]"',
  },
  get: {
    thrownObject: 'Error running hostile: the tool threw an object whose message could not be read: get trap',
    thrownError: 'Error running hostile: the tool threw an object whose message could not be read: get trap',
    returned: 'Error running hostile: get trap',
  },
  has: {
    thrownObject: 'Error running hostile: {"code":"E1"}',
    thrownError: 'Error running hostile: card declined',
    returned: '{"id":7}',
  },
  ownKeys: {
    thrownObject: 'Error running hostile: "[Unserializable Object: ownKeys trap]"',
    thrownError: 'Error running hostile: card declined',
    returned: '"[Unserializable Object: ownKeys trap]"',
  },
  getOwnPropertyDescriptor: {
    thrownObject: 'Error running hostile: "[Unserializable Object: getOwnPropertyDescriptor trap]"',
    thrownError: 'Error running hostile: card declined',
    returned: '"[Unserializable Object: getOwnPropertyDescriptor trap]"',
  },
  revoked: {
    thrownObject: `Error running hostile: the tool threw an object whose message could not be read: ${REVOKED('get')}`,
    thrownError: `Error running hostile: the tool threw an object whose message could not be read: ${REVOKED('get')}`,
    returned: `Error running hostile: ${REVOKED('get')}`,
  },
};

/**
 * A plain client, or one where more reads the value: the call's own redaction (`sensitiveFieldNames`), the failed
 * result's log line and its trace.
 */
const SETUPS = ['a plain client', 'sensitive fields, a logger and tracing'] as const;

const CASES = SETUPS.flatMap((setup) =>
  Object.keys(HOSTILE).flatMap((kind) =>
    (['thrownObject', 'thrownError', 'returned'] as const).map((how) => ({ setup, kind, how })),
  ),
);

describe('a tool that throws or returns a hostile value, through a client', () => {
  it.each(CASES)(
    'ends with a result when it $how through a $kind trap ($setup)',
    async ({ setup, kind, how }) => {
      const make = HOSTILE[kind] as (target: object) => object;
      const more = setup !== 'a plain client';
      const hostile = tool({
        name: 'hostile',
        description: 'Gives a hostile value.',
        parameters: { type: 'object', properties: { card: { type: 'string' } } } as const,
        ...(more ? { sensitiveFieldNames: ['card'] } : {}),
        execute: () => {
          if (how === 'returned') return make({ id: 7 });
          throw make(how === 'thrownObject' ? { code: 'E1' } : new Error('card declined'));
        },
      });
      const { logger, lines } = recordingLogger();
      const traced: string[] = [];
      const tracing: ToolTracing = {
        startCall: () => ({ event() {}, run: (fn) => fn(), end: (ended) => traced.push(ended.status) }),
      };
      // A lost result would end the call at the stub's lease, 1 s later: the model would read a timeout text.
      const server = await stub({
        leaseMs: 1000,
        callDeadlineMs: 1000,
        model: scriptedModel([
          { toolCalls: [{ name: 'hostile' }] },
          ({ messages }) => ({ text: String(messages.at(-1)?.content) }),
        ]),
      });
      const client = await connected(server.url, { tools: [hostile], ...(more ? { logger, tracing } : {}) });
      const errors: unknown[] = [];
      client.on('error', (error) => errors.push(error));
      const agent = new Agent({ name: 'A', instructions: 'Use the tool.', tools: [hostile] });
      const result = await client.run(agent, 'go');
      const reads = READS[kind]?.[how];
      // A returned value whose `then` cannot be read fails the call, as `await` would (docs/guide/model-output.md).
      const status = how === 'returned' && kind !== 'get' && kind !== 'revoked' ? 'ok' : 'error';
      expect(result.toolCalls.map((call) => [call.status, call.output])).toEqual([[status, reads]]);
      expect(result.finalOutput).toBe(reads);
      expect(errors).toEqual([]);
      if (!more) return;
      expect(traced).toEqual([status]);
      const warned = lines.filter((line) => line.level === 'warn').map((line) => line.message);
      expect(warned).toEqual(status === 'ok' ? [] : [reads]);
    },
  );
});
