/**
 * Seed 001 (Assembly Line), "Minimal Example" and "Safe Model Output", run through the Client. There a file's
 * default export is the tool and the file name its name; here the same object is a value in a `tools` record
 * whose key is the name. `defineTool` (their package) is stood in for by a function that returns its argument:
 * toolwire reads the object structurally.
 *
 * Quoted from the document:
 *
 *   // tools/echo.ts
 *   export default defineTool({
 *     description: "Echo a message back to the caller.",
 *     inputSchema: {
 *       type: "object",
 *       properties: {
 *         message: { type: "string" }
 *       },
 *       required: ["message"]
 *     },
 *     async execute(input: { message: string }) {
 *       return { message: input.message };
 *     }
 *   });
 *
 *   export default defineTool({
 *     description: "Look up a record and return a safe summary.",
 *     inputSchema: {
 *       type: "object",
 *       properties: { lookup: { type: "string" } },
 *       required: ["lookup"]
 *     },
 *     async execute(input: { lookup: string }) {
 *       return {
 *         summary: `Found ${input.lookup}`,
 *         internalScore: 0.98,
 *         internalTrace: ["vector", "rerank", "policy"]
 *       };
 *     },
 *     toModelOutput(output: { summary: string }) {
 *       return { summary: output.summary };
 *     }
 *   });
 *
 *   import { approvalRequired, defineTool } from "@assemblyline-agents/core";
 *
 *   export default defineTool({
 *     description: "Record a durable note.",
 *     inputSchema: {
 *       type: "object",
 *       properties: { note: { type: "string" } },
 *       required: ["note"]
 *     },
 *     needsApproval: approvalRequired("Recording a note is a durable side effect.", "idempotent"),
 *     async execute(input: { note: string }, ctx) {
 *       await ctx.emit("note.recorded", {
 *         note: input.note,
 *         idempotencyKey: ctx.idempotencyKey("record-note")
 *       });
 *       return { recorded: true };
 *     }
 *   });
 *
 *   export default defineTool({
 *     description: "Hydrate a customer profile once per run.",
 *     inputSchema: {
 *       type: "object",
 *       properties: { customerId: { type: "string" } },
 *       required: ["customerId"]
 *     },
 *     async execute(input: { customerId: string }, ctx) {
 *       const profile = await ctx.step(
 *         `hydrate-customer:${input.customerId}`,
 *         async () => {
 *           const response = await fetch(`https://api.example.com/customers/${input.customerId}`, {
 *             headers: { "Idempotency-Key": ctx.idempotencyKey(`customer:${input.customerId}`) }
 *           });
 *           return response.json();
 *         },
 *         { metadata: { customerId: input.customerId } }
 *       );
 *
 *       return { profile };
 *     }
 *   });
 *
 * As written, with only the import line changed to `toolwire/compat`: `defineTool` without a name gives a
 * definition that a `tools` record names by its key (there, the file name), and `ctx` is not annotated (it is
 * toolwire's `ctx` with Assembly Line's names: `approvedToolCall`, `agentRevisionIdentity`). `fetch` is stubbed
 * for the test (no network). A difference, said plainly: toolwire keeps a step per call (replayed for a retry or
 * a re-dispatch of the call, kept by the service), not per run as Assembly Line does; and `metadata` is accepted
 * and not used.
 */
import { approvalRequired, defineTool } from 'toolwire/compat';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runSeed } from './through-stub';

const echo = defineTool({
  description: 'Echo a message back to the caller.',
  inputSchema: {
    type: 'object',
    properties: {
      message: { type: 'string' },
    },
    required: ['message'],
  },
  async execute(input: { message: string }) {
    return { message: input.message };
  },
});

const lookup_record = defineTool({
  description: 'Look up a record and return a safe summary.',
  inputSchema: {
    type: 'object',
    properties: { lookup: { type: 'string' } },
    required: ['lookup'],
  },
  async execute(input: { lookup: string }) {
    return {
      summary: `Found ${input.lookup}`,
      internalScore: 0.98,
      internalTrace: ['vector', 'rerank', 'policy'],
    };
  },
  toModelOutput(output: { summary: string }) {
    return { summary: output.summary };
  },
});

const record_note = defineTool({
  description: 'Record a durable note.',
  inputSchema: {
    type: 'object',
    properties: { note: { type: 'string' } },
    required: ['note'],
  },
  needsApproval: approvalRequired('Recording a note is a durable side effect.', 'idempotent'),
  async execute(input: { note: string }, ctx) {
    await ctx.emit('note.recorded', {
      note: input.note,
      idempotencyKey: ctx.idempotencyKey('record-note'),
    });
    return { recorded: true };
  },
});

const hydrate_customer = defineTool({
  description: 'Hydrate a customer profile once per run.',
  inputSchema: {
    type: 'object',
    properties: { customerId: { type: 'string' } },
    required: ['customerId'],
  },
  async execute(input: { customerId: string }, ctx) {
    const profile = await ctx.step(
      `hydrate-customer:${input.customerId}`,
      async () => {
        const response = await fetch(`https://api.example.com/customers/${input.customerId}`, {
          headers: { 'Idempotency-Key': ctx.idempotencyKey(`customer:${input.customerId}`) },
        });
        return response.json();
      },
      { metadata: { customerId: input.customerId } },
    );

    return { profile };
  },
});

/** The Execution Context's identity members, and discovery metadata (Full Options: defaultEnabled, capability). */
const whoami = defineTool({
  description: 'Say which run, revision and approval this call has.',
  inputSchema: { type: 'object', properties: {} },
  defaultEnabled: true,
  capability: {
    visibility: 'always',
    execution: 'direct',
    namespace: 'meta',
    tags: ['debug'],
    aliases: ['me'],
  },
  needsApproval: true,
  async execute(_input, ctx) {
    return { runId: ctx.runId, revision: ctx.agentRevisionIdentity, approved: ctx.approvedToolCall };
  },
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('seed 001: Assembly Line', () => {
  it('runs both tools from a record keyed by name; the model reads only the projection', async () => {
    const lines = await runSeed({
      tools: { echo, lookup_record },
      script: [
        { toolCalls: [{ name: 'echo', arguments: {} }] },
        {
          toolCalls: [
            { name: 'echo', arguments: { message: 'hello' } },
            { name: 'lookup_record', arguments: { lookup: 'acct-7' } },
          ],
        },
        { text: 'done' },
      ],
    });
    expect(lines).toEqual([
      'echo({}) → invalid_arguments: Invalid arguments for echo: message: expected a string, received nothing',
      'echo({"message":"hello"}) → ok: {"message":"hello"}',
      'lookup_record({"lookup":"acct-7"}) → ok: {"summary":"Found acct-7"}',
    ]);
  });

  it('Approval Gates: approvalRequired(reason, sideEffect) asks with the reason, then runs and emits', async () => {
    const asked: Array<{ toolName: string; reason: string | undefined; sideEffect: unknown }> = [];
    let emitted: unknown;
    let sideEffect: unknown;
    const lines = await runSeed({
      tools: { record_note },
      onApproval: (request) => {
        asked.push({ toolName: request.toolName, reason: request.reason, sideEffect: request.sideEffect });
        return true;
      },
      script: [
        { toolCalls: [{ name: 'record_note', arguments: { note: 'call back Friday' } }] },
        { text: 'ok' },
      ],
      inspect: (transcript) => {
        emitted = transcript?.events.find((event) => event.kind === 'tool_event')?.data;
        sideEffect = transcript?.toolCalls[0]?.sideEffect;
      },
    });
    expect(lines).toEqual(['record_note({"note":"call back Friday"}) → ok: {"recorded":true}']);
    expect(asked).toEqual([
      {
        toolName: 'record_note',
        reason: 'Recording a note is a durable side effect.',
        sideEffect: 'idempotent',
      },
    ]);
    expect(sideEffect).toBe('idempotent');
    expect(emitted).toMatchObject({
      event: 'note.recorded',
      data: { note: 'call back Friday', idempotencyKey: expect.stringMatching(/^toolwire:.+:record-note$/) },
    });
  });

  it('Durable Steps: ctx.step(key, fn, { metadata }) runs the body once and the service keeps its result', async () => {
    const fetched: Array<{ url: string; key: string | null }> = [];
    vi.stubGlobal('fetch', async (url: string, init: { headers: Record<string, string> }) => {
      fetched.push({ url, key: new Headers(init.headers).get('Idempotency-Key') });
      return Response.json({ id: 'c_9', name: 'Ada' });
    });
    let steps: unknown;
    const lines = await runSeed({
      tools: { hydrate_customer },
      script: [
        { toolCalls: [{ name: 'hydrate_customer', arguments: { customerId: 'c_9' } }] },
        { text: 'ok' },
      ],
      inspect: (transcript) => {
        steps = transcript?.toolCalls[0]?.steps;
      },
    });
    expect(lines).toEqual([
      'hydrate_customer({"customerId":"c_9"}) → ok: {"profile":{"id":"c_9","name":"Ada"}}',
    ]);
    expect(fetched).toEqual([
      {
        url: 'https://api.example.com/customers/c_9',
        key: expect.stringMatching(/^toolwire:.+:customer%3Ac_9$/),
      },
    ]);
    expect(steps).toEqual({ 'hydrate-customer:c_9': { id: 'c_9', name: 'Ada' } });
  });

  it('Execution Context: ctx.runId, ctx.agentRevisionIdentity, ctx.approvedToolCall; discovery metadata announced', async () => {
    let result: unknown;
    let runId: string | undefined;
    const lines = await runSeed({
      tools: { whoami },
      onApproval: () => true,
      script: [{ toolCalls: [{ name: 'whoami', arguments: {} }] }, { text: 'ok' }],
      inspect: (transcript) => {
        runId = transcript?.runId;
        result = JSON.parse(transcript?.toolCalls[0]?.output ?? 'null');
      },
    });
    expect(lines).toHaveLength(1);
    expect(result).toEqual({ runId, revision: expect.stringMatching(/^Seed@[0-9a-f]{12}$/), approved: true });
  });
});
