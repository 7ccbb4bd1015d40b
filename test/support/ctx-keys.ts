/** The own enumerable keys of a call's `ctx`, in the order `Object.keys(ctx)` and `{ ...ctx }` show them. */
export const CTX_KEYS = [
  'context',
  'signal',
  'callId',
  'runId',
  'toolName',
  'approved',
  'depth',
  'idempotencyKey',
  'attempt',
  'sessionId',
  'agentName',
  'tenantId',
  'userId',
  'agentRevision',
  'logger',
];
