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
 * Not run here: "Approval Gates" (`approvalRequired(reason, sideEffect)`) and "Durable Steps" (`ctx.step`)
 * need the policies and durable steps of issue 19; their `needsApproval` policy object is refused by this
 * branch's `tool()` (tested below), never ignored.
 */
import { describe, expect, it } from 'vitest';
import { ToolDefinitionError } from '../../src/index';
import { toTools } from '../../src/tool/structural';
import { runSeed } from './through-stub';

const defineTool = <T>(definition: T): T => definition;

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
      'echo({}) → invalid_arguments: Invalid arguments for echo: message: missing required property',
      'echo({"message":"hello"}) → ok: {"message":"hello"}',
      'lookup_record({"lookup":"acct-7"}) → ok: {"summary":"Found acct-7"}',
    ]);
  });

  it('refuses an approval policy object for needsApproval, naming the tool and the field', () => {
    const policy = {
      required: true,
      reason: 'Recording a note is a durable side effect.',
      sideEffect: 'idempotent',
    };
    const record_note = defineTool({ ...echo, needsApproval: policy });
    expect(() => toTools({ record_note }, 'test')).toThrowError(
      new ToolDefinitionError(
        'invalid_option',
        'tool "record_note": needsApproval must be a boolean, a function or approvalRequired(reason, sideEffect?) (a reason of 1 to 1000 characters; none, idempotent or external), got an object',
      ),
    );
  });
});
