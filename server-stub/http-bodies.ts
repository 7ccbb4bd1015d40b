/**
 * The request bodies of the HTTP API, as schemas, and {@link parseBody}, which checks one and refuses a
 * malformed body with a 400 naming the field at fault and the rule it breaks (`input must be a string`,
 * `agent.tools[0] must be a string`). Unknown fields are ignored.
 *
 * @module
 */
import * as z from 'zod/mini';
import { faultsOf, ruleOf } from '../src/wire/issue-text';
import { clientFrames, runMetadata, toolChoiceSchema } from '../src/wire/protocol';
import { HttpError } from './http-io';

const NOT_AN_OBJECT = 'request body must be a JSON object';

/**
 * The rule of a count (`maxTurns`, `dispatch`): an integer from 1 to `Number.MAX_SAFE_INTEGER`, the range of
 * `run_start.maxTurns` over the socket and of the client's `maxTurns` option. Past it, adding 1 to a count
 * changes nothing (2 ** 53 + 1 === 2 ** 53), so a run would never reach its bound: refused, not clamped.
 */
const COUNT_RULE = `must be an integer from 1 to ${Number.MAX_SAFE_INTEGER}`;

const count = z
  .number({ error: COUNT_RULE })
  .check(z.refine((n) => Number.isSafeInteger(n) && n >= 1, { error: COUNT_RULE }));

/** `agent.tools[0]`: a path as a reader of the body writes it. */
function pathText(path: readonly PropertyKey[]): string {
  return path
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`))
    .join('');
}

/**
 * An issue as `<path> <rule>`, the rule in words (src/wire/issue-text.ts). A union whose value took the shape of
 * one of its forms (an object where an agent name or definition goes) says what is wrong inside that form, up to
 * three problems (`agent.name must be a string; agent.tools must be an array`), rather than that it matches no
 * form.
 */
export function describeIssue(issue: z.core.$ZodIssue): string {
  return faultsOf(issue)
    .map(({ path, rule }) => {
      const field = pathText(path);
      return field === '' ? rule : `${field} ${rule}`;
    })
    .join('; ');
}

/** `POST /v1/runs`: `{ agent: AgentDefinition | string, input: string, maxTurns?, userId?, toolChoice?, metadata? }`. */
export const startRunBody = z.object(
  {
    agent: z.union([z.string(), clientFrames().agentDefinitionSchema], {
      error: 'must be an agent name or an agent definition ({ name, instructions, tools })',
    }),
    input: z.string({ error: 'must be a string' }),
    maxTurns: z.optional(count),
    /** The end user the run acts for: given to its tool calls as `tool_call.userId` (feature `call_context`). */
    userId: z.optional(
      z
        .string({ error: 'must be a string of 1 to 256 characters' })
        .check(
          z.minLength(1, { error: 'must be a string of 1 to 256 characters' }),
          z.maxLength(256, { error: 'must be a string of 1 to 256 characters' }),
        ),
    ),
    toolChoice: z.optional(toolChoiceSchema()),
    metadata: z.optional(runMetadata()),
  },
  { error: NOT_AN_OBJECT },
);

/**
 * `POST /v1/runs/:runId/approvals/:callId`: `{ approved: boolean, reason?: string, arguments?: object, always?:
 * boolean }` (`arguments` only when approving, docs/protocol/decisions.md).
 */
export const decisionBody = z
  .object(
    {
      approved: z.boolean({ error: 'must be a boolean' }),
      reason: z.optional(z.string({ error: 'must be a string' })),
      arguments: z.optional(z.record(z.string(), z.unknown(), { error: 'must be an object' })),
      always: z.optional(z.boolean({ error: 'must be a boolean' })),
    },
    { error: NOT_AN_OBJECT },
  )
  .check(
    z.refine((body) => body.approved || body.arguments === undefined, {
      message: 'may only be edited when approving',
      path: ['arguments'],
    }),
  );

/** `POST /v1/runs/:runId/cancel`: `{ reason?: string }` (an empty body reads as `{}`). */
export const cancelBody = z.object(
  { reason: z.optional(z.string({ error: 'must be a string' })) },
  { error: NOT_AN_OBJECT },
);

/**
 * The body, checked against its schema.
 * @throws HttpError 400 `invalid_request` naming the first field at fault and its rule, e.g. `approved must be a
 *   boolean`.
 */
export function parseBody<T>(schema: z.ZodMiniType<T>, body: unknown): T {
  const parsed = schema.safeParse(body, { error: ruleOf });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new HttpError(400, 'invalid_request', issue === undefined ? NOT_AN_OBJECT : describeIssue(issue));
}

/**
 * `POST /v1/runs/:runId/calls/:callId/questions/:questionId`: `{ answer }` or `{ declined: true, reason? }`, with
 * `dispatch?` (the question event's, docs/protocol/questions.md).
 */
export const answerBody = z
  .object(
    {
      answer: z.optional(z.unknown()),
      declined: z.optional(z.literal(true, { error: 'must be true' })),
      reason: z.optional(z.string({ error: 'must be a string' })),
      dispatch: z.optional(count),
    },
    { error: NOT_AN_OBJECT },
  )
  .check(
    z.refine((body) => body.declined === true || 'answer' in body, {
      error: 'is required unless declined is true',
      path: ['answer'],
    }),
  );
