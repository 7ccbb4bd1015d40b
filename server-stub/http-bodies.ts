/**
 * The request bodies of the HTTP API, as schemas, and {@link parseBody}, which checks one and refuses a
 * malformed body with a 400 naming the first field at fault (`input must be a string`). Unknown fields are
 * ignored.
 *
 * @module
 */
import * as z from 'zod/mini';
import { agentDefinitionSchema, runMetadata, toolChoiceSchema } from '../src/wire/protocol';
import { HttpError } from './http-io';

const NOT_AN_OBJECT = 'request body must be a JSON object';

/** The first few problems of an agent definition, each as `agent.<path>: <what>`. */
function agentDetail(issues: readonly { code: string; path: readonly PropertyKey[] }[]): string {
  return issues
    .slice(0, 3)
    .map(
      (issue) =>
        `agent${issue.path.map((key) => `.${String(key)}`).join('')}: ${issue.code.replaceAll('_', ' ')}`,
    )
    .join('; ');
}

/** `POST /v1/runs`: `{ agent: AgentDefinition | string, input: string, maxTurns?: int ≥ 1, userId?: string }`. */
export const startRunBody = z.object(
  {
    agent: z.union([z.string(), agentDefinitionSchema], {
      // The definition branch's problems say what is wrong (the string branch only says "not a string").
      error: (issue) => {
        const branches = issue.code === 'invalid_union' && 'errors' in issue ? issue.errors : [];
        return `must be an agent name or an agent definition (${agentDetail(branches[1] ?? [])})`;
      },
    }),
    input: z.string({ error: 'must be a string' }),
    maxTurns: z.optional(
      z
        .number({ error: 'must be an integer ≥ 1' })
        .check(z.refine((n) => Number.isInteger(n) && n >= 1, { error: 'must be an integer ≥ 1' })),
    ),
    /** The end user the run acts for: given to its tool calls as `tool_call.userId` (feature `call_context`). */
    userId: z.optional(
      z
        .string({ error: 'must be a string of 1 to 256 characters' })
        .check(
          z.minLength(1, { error: 'must be a string of 1 to 256 characters' }),
          z.maxLength(256, { error: 'must be a string of 1 to 256 characters' }),
        ),
    ),
    toolChoice: z.optional(toolChoiceSchema),
    metadata: z.optional(runMetadata),
  },
  { error: NOT_AN_OBJECT },
);

/**
 * `POST /v1/runs/:runId/approvals/:callId`: `{ approved: boolean, reason?: string, arguments?: object, always?:
 * boolean }` (`arguments` only when approving, docs/protocol/approvals.md).
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
 * @throws HttpError 400 `invalid_request` naming the first field at fault, e.g. `approved must be a boolean`.
 */
export function parseBody<T>(schema: z.ZodMiniType<T>, body: unknown): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.map(String).join('.') ?? '';
  const message = issue?.message ?? NOT_AN_OBJECT;
  throw new HttpError(400, 'invalid_request', field === '' ? message : `${field} ${message}`);
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
      dispatch: z.optional(
        z
          .number({ error: 'must be an integer ≥ 1' })
          .check(z.refine((n) => Number.isInteger(n) && n >= 1, { error: 'must be an integer ≥ 1' })),
      ),
    },
    { error: NOT_AN_OBJECT },
  )
  .check(
    z.refine((body) => body.declined === true || 'answer' in body, {
      error: 'must have an answer, or declined: true',
      path: ['answer'],
    }),
  );
