/**
 * Every route of the stub's HTTP API (docs/protocol/http-api.md) given bad input: a malformed body, a bad path
 * parameter, the wrong content type, a body over the limit, an unknown id. Each is answered with a 4xx whose
 * message names the field and the rule it breaks, and changes nothing: no run started, the held call still held,
 * the open question still open, the keys and the build as they were.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StubServer, scriptedModel, startStubServer } from '../../server-stub/index';
import { agent, captureLogger, http, once, stub } from './helpers';
import { TestClient, toolDef } from './test-client';

const LIMIT = 32_768;
const ADMIN = 'admin-key';
const AGENT_RULE = 'agent must be an agent name or an agent definition ({ name, instructions, tools })';
const COUNT_RULE = 'must be an integer from 1 to 9007199254740991';
const TOOL_CHOICE_RULE =
  'toolChoice must be "auto", "none", "required" or { "type": "tool", "name": <tool name> }';

/** A request: `{run}`, `{held}` (the call held for approval), `{asked}` (the call that asked) in `path`. */
interface Sent {
  method: string;
  path: string;
  /** A string is sent as it is, anything else as JSON. */
  body?: unknown;
  /** The `Content-Type` sent with a body. @default 'application/json' */
  type?: string;
}

/** A refusal: a message alone is a 400 `invalid_request`. */
type Refusal = string | [status: number, code: string, message: string];
/** `[what is wrong, the body, the refusal]`; the body may be a whole request ({@link Whole}). */
type Case = [what: string, body: unknown, refusal: Refusal];
type Row = [label: string, sent: Sent, status: number, code: string, message: string];

const EMPTY = 'request body is empty; a JSON object is required';
const NOT_OBJECT = 'request body must be a JSON object';
const NOT_JSON: Refusal = [
  400,
  'invalid_json',
  'request body is not valid JSON: invalid syntax at position 0',
];
const NOT_JSON_TYPE = (type: string): Refusal => [
  415,
  'unsupported_media_type',
  `content-type must be application/json, got ${JSON.stringify(type)}`,
];

/** A whole request, where a case gives one instead of a body for its route. */
class Whole {
  constructor(readonly sent: Sent) {}
}
const send = (sent: Sent) => new Whole(sent);

/** The rows of one route: `to(body)` is the request that carries a case's body. */
function on(route: string, to: ((body: unknown) => Sent) | undefined, cases: Case[]): Row[] {
  return cases.map(([what, body, refusal]) => {
    const sent = body instanceof Whole ? body.sent : to?.(body);
    if (sent === undefined) throw new Error(`${route}: ${what}: give the whole request`);
    const [status, code, message] = typeof refusal === 'string' ? [400, 'invalid_request', refusal] : refusal;
    return [`${route}: ${what}`, sent, status, code, message];
  });
}

const startRun = (body: unknown): Sent => ({ method: 'POST', path: '/v1/runs', body });
const run = (fields: Record<string, unknown>) => ({ agent: 'known', input: 'x', ...fields });
const definition = (fields: Record<string, unknown>) => ({
  agent: { name: 'a', instructions: 'i', tools: [], ...fields },
  input: 'x',
});
const decide =
  (call = '{held}', runId = '{run}') =>
  (body: unknown): Sent => ({
    method: 'POST',
    path: `/v1/runs/${runId}/approvals/${call}`,
    body,
  });
const answer =
  (question = 'q1', call = '{asked}', runId = '{run}') =>
  (body: unknown): Sent => ({
    method: 'POST',
    path: `/v1/runs/${runId}/calls/${call}/questions/${question}`,
    body,
  });
const cancel =
  (runId = '{run}') =>
  (body: unknown): Sent => ({
    method: 'POST',
    path: `/v1/runs/${runId}/cancel`,
    body,
  });
const admin =
  (path: string) =>
  (body: unknown): Sent => ({ method: 'PUT', path: `/v1/admin/${path}`, body });
const get = (path: string) => send({ method: 'GET', path });

const tooLarge = JSON.stringify(run({ input: 'x'.repeat(LIMIT) }));
let deep: unknown = 'end';
for (let depth = 0; depth < 128; depth++) deep = { deeper: deep };
const manyKeys = Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`k${i}`, i]));
const USER_ID = 'userId must be a string of 1 to 256 characters';
const TOOL_NAME = 'toolChoice.name must be 1 to 64 letters, digits, _ or -';
const METADATA_BYTES = 'metadata must be at most 16384 bytes of JSON';
const BUILD_ID = 'buildId must be 1 to 128 printable ASCII characters without spaces, or null';

const ROWS: Row[] = [
  ...on('POST /v1/runs', startRun, [
    // The body as a whole.
    ['an empty body', '', EMPTY],
    ['a body of spaces', ' \n\t', EMPTY],
    [
      'a body cut short',
      '{',
      [400, 'invalid_json', 'request body is not valid JSON: unexpected end of input'],
    ],
    ['NaN for a body', 'NaN', NOT_JSON],
    ['null for a body', 'null', NOT_OBJECT],
    ['an array for a body', '[]', NOT_OBJECT],
    ['a string for a body', '"run"', NOT_OBJECT],
    ['a number for a body', '42', NOT_OBJECT],
    [
      'a body nested deeper than 128 levels',
      run({ metadata: deep }),
      'request body nests deeper than 128 levels',
    ],
    [
      'a body over maxHttpBodyBytes',
      tooLarge,
      [413, 'payload_too_large', `request body is ${tooLarge.length} bytes; the limit is ${LIMIT}`],
    ],
    ['text/plain', send({ ...startRun(run({})), type: 'text/plain' }), NOT_JSON_TYPE('text/plain')],
    [
      'a form (curl -d)',
      send({ ...startRun(run({})), type: 'application/x-www-form-urlencoded' }),
      NOT_JSON_TYPE('application/x-www-form-urlencoded'),
    ],
    [
      'application/jsonp',
      send({ ...startRun(run({})), type: 'application/jsonp' }),
      NOT_JSON_TYPE('application/jsonp'),
    ],
    // agent.
    ['no agent', { input: 'x' }, AGENT_RULE],
    ['agent a number', run({ agent: 5 }), AGENT_RULE],
    ['agent null', run({ agent: null }), AGENT_RULE],
    ['agent an array', run({ agent: ['known'] }), AGENT_RULE],
    [
      'agent an empty object',
      run({ agent: {} }),
      'agent.name must be a string; agent.instructions must be a string; agent.tools must be an array',
    ],
    ['agent.name empty', definition({ name: '' }), 'agent.name must be at least 1 character'],
    [
      'agent.name of 129 characters',
      definition({ name: 'n'.repeat(129) }),
      'agent.name must be at most 128 characters',
    ],
    ['agent.name a number', definition({ name: 7 }), 'agent.name must be a string'],
    ['agent.instructions a number', definition({ instructions: 5 }), 'agent.instructions must be a string'],
    ['agent.tools a string', definition({ tools: 'charge' }), 'agent.tools must be an array'],
    ['agent.tools holding a number', definition({ tools: [1] }), 'agent.tools[0] must be a string'],
    [
      'agent.tools holding an object',
      definition({ tools: ['charge', { name: ['charge'] }] }),
      'agent.tools[1] must be a string',
    ],
    ['agent.model a number', definition({ model: 5 }), 'agent.model must be a string'],
    ['agent.outputSchema an array', definition({ outputSchema: [] }), 'agent.outputSchema must be an object'],
    [
      'agent.outputSchema a string',
      definition({ outputSchema: '{}' }),
      'agent.outputSchema must be an object',
    ],
    [
      'an agent name no agent has',
      run({ agent: 'nobody' }),
      [404, 'unknown_agent', 'no agent named "nobody" (known: known)'],
    ],
    ['an empty agent name', run({ agent: '' }), [404, 'unknown_agent', 'no agent named "" (known: known)']],
    // input.
    ['no input', { agent: 'known' }, 'input must be a string'],
    ['input a number', run({ input: 5 }), 'input must be a string'],
    ['input null', run({ input: null }), 'input must be a string'],
    ['input an object', run({ input: { text: 'x' } }), 'input must be a string'],
    // maxTurns: a run counts its turns up to Number.MAX_SAFE_INTEGER, the bound of run_start.maxTurns.
    ...([0, -1, 1.5, '3', 'NaN', 'Infinity', null, true, {}, 1e308, 2 ** 53] as const).map(
      (maxTurns): Case => [
        `maxTurns ${JSON.stringify(maxTurns)}`,
        run({ maxTurns }),
        `maxTurns ${COUNT_RULE}`,
      ],
    ),
    [
      'maxTurns 1e999 (Infinity once parsed)',
      '{"agent":"known","input":"x","maxTurns":1e999}',
      `maxTurns ${COUNT_RULE}`,
    ],
    // userId.
    ['userId empty', run({ userId: '' }), USER_ID],
    ['userId of 257 characters', run({ userId: 'u'.repeat(257) }), USER_ID],
    ['userId a number', run({ userId: 42 }), USER_ID],
    ['userId null', run({ userId: null }), USER_ID],
    // toolChoice.
    ['toolChoice an unknown mode', run({ toolChoice: 'sometimes' }), TOOL_CHOICE_RULE],
    ['toolChoice a number', run({ toolChoice: 1 }), TOOL_CHOICE_RULE],
    ['toolChoice null', run({ toolChoice: null }), TOOL_CHOICE_RULE],
    ['toolChoice an array', run({ toolChoice: ['auto'] }), TOOL_CHOICE_RULE],
    [
      'toolChoice an empty object',
      run({ toolChoice: {} }),
      'toolChoice.type must be "tool"; toolChoice.name must be a string',
    ],
    ['toolChoice without a name', run({ toolChoice: { type: 'tool' } }), 'toolChoice.name must be a string'],
    [
      'toolChoice of another type',
      run({ toolChoice: { type: 'function', name: 'charge' } }),
      'toolChoice.type must be "tool"',
    ],
    ['toolChoice.name no tool can have', run({ toolChoice: { type: 'tool', name: 'bad name' } }), TOOL_NAME],
    [
      'toolChoice.name of 65 characters',
      run({ toolChoice: { type: 'tool', name: 't'.repeat(65) } }),
      TOOL_NAME,
    ],
    // metadata: a JSON object of at most 16,384 bytes, whatever its keys and values.
    ['metadata an array', run({ metadata: [] }), 'metadata must be an object'],
    ['metadata a string', run({ metadata: '{}' }), 'metadata must be an object'],
    ['metadata null', run({ metadata: null }), 'metadata must be an object'],
    ['metadata a number', run({ metadata: 5 }), 'metadata must be an object'],
    ['metadata with a value over the bytes', run({ metadata: { note: 'x'.repeat(16_384) } }), METADATA_BYTES],
    [
      'metadata over the bytes in 2-byte characters',
      run({ metadata: { note: 'é'.repeat(8_200) } }),
      METADATA_BYTES,
    ],
    ['metadata with a key over the bytes', run({ metadata: { ['k'.repeat(16_384)]: 1 } }), METADATA_BYTES],
    ['metadata with 2,000 keys', run({ metadata: manyKeys }), METADATA_BYTES],
  ]),
  ...on('POST /v1/runs/:runId/approvals/:callId', decide(), [
    ['an empty body', '', EMPTY],
    ['a body that is not JSON', 'yes', NOT_JSON],
    ['a string for a body', '"approve"', NOT_OBJECT],
    ['an array for a body', '[true]', NOT_OBJECT],
    [
      'text/plain',
      send({ ...decide()({ approved: true }), type: 'text/plain' }),
      NOT_JSON_TYPE('text/plain'),
    ],
    ['no approved', {}, 'approved must be a boolean'],
    ['approved a string', { approved: 'true' }, 'approved must be a boolean'],
    ['approved a number', { approved: 1 }, 'approved must be a boolean'],
    ['reason a number', { approved: true, reason: 5 }, 'reason must be a string'],
    ...([[], 'x', '{"amount":1}', null, 5, true] as const).map(
      (args): Case => [
        `arguments ${JSON.stringify(args)}`,
        { approved: true, arguments: args },
        'arguments must be an object',
      ],
    ),
    [
      'arguments with a rejection',
      { approved: false, arguments: {} },
      'arguments may only be edited when approving',
    ],
    ['always a string', { approved: true, always: 'yes' }, 'always must be a boolean'],
    [
      'an unknown call id',
      send(decide('call_nope')({ approved: true })),
      [404, 'unknown_call', 'no tool call "call_nope" in run {run}'],
    ],
    [
      'the id of a call not held',
      send(decide('{asked}')({ approved: true })),
      [409, 'not_allowed', 'tool call {asked} is not awaiting approval'],
    ],
    [
      'an unknown run id',
      send(decide('{held}', 'run_nope')({ approved: true })),
      [404, 'unknown_run', 'no run "run_nope"'],
    ],
    [
      'a call id of 257 characters',
      send(decide('c'.repeat(257))({ approved: true })),
      'callId must be 1 to 256 characters, got 257',
    ],
    [
      'a call id badly escaped',
      send(decide('%ZZ')({ approved: true })),
      'callId must be percent-encoded UTF-8, got "%ZZ"',
    ],
  ]),
  ...on('POST /v1/runs/:runId/calls/:callId/questions/:questionId', answer(), [
    ['an empty body', '', EMPTY],
    ['an array for a body', [], NOT_OBJECT],
    [
      'text/plain',
      send({ ...answer()({ answer: 'Lyon' }), type: 'text/plain' }),
      NOT_JSON_TYPE('text/plain'),
    ],
    ['neither answer nor declined', {}, 'answer is required unless declined is true'],
    ['declined false', { declined: false }, 'declined must be true'],
    ['declined a string', { declined: 'yes' }, 'declined must be true'],
    ['reason a number', { declined: true, reason: 5 }, 'reason must be a string'],
    ...([0, -1, 1.5, '1', null, 1e308] as const).map(
      (dispatch): Case => [
        `dispatch ${JSON.stringify(dispatch)}`,
        { answer: 'Lyon', dispatch },
        `dispatch ${COUNT_RULE}`,
      ],
    ),
    [
      'not one of the choices',
      { answer: 'Paris' },
      [400, 'invalid_answer', 'answer must be one of: Berlin, Lyon'],
    ],
    [
      'an unknown question id',
      send(answer('q_nope')({ answer: 'Lyon' })),
      [404, 'unknown_question', 'tool call {asked} asked no question "q_nope"'],
    ],
    [
      'an unknown call id',
      send(answer('q1', 'call_nope')({ answer: 'Lyon' })),
      [404, 'unknown_call', 'no tool call "call_nope" in run {run}'],
    ],
    [
      'an unknown run id',
      send(answer('q1', '{asked}', 'run_nope')({ answer: 'Lyon' })),
      [404, 'unknown_run', 'no run "run_nope"'],
    ],
    [
      'a question id of 257 characters',
      send(answer('q'.repeat(257))({ answer: 'Lyon' })),
      'questionId must be 1 to 256 characters, got 257',
    ],
  ]),
  // An empty body is a cancel.
  ...on('POST /v1/runs/:runId/cancel', cancel(), [
    ['reason a number', { reason: 5 }, 'reason must be a string'],
    ['an array for a body', [], NOT_OBJECT],
    ['a body that is not JSON', 'stop', NOT_JSON],
    ['text/plain', send({ ...cancel()({}), type: 'text/plain' }), NOT_JSON_TYPE('text/plain')],
    ['an unknown run id', send(cancel('run_nope')({})), [404, 'unknown_run', 'no run "run_nope"']],
    [
      'a run id of 300 characters',
      send(cancel('r'.repeat(300))({})),
      'runId must be 1 to 256 characters, got 300',
    ],
  ]),
  ...on('GET /v1/runs/:runId', undefined, [
    ['an unknown run id', get('/v1/runs/run_nope'), [404, 'unknown_run', 'no run "run_nope"']],
    [
      'a run id badly escaped',
      get('/v1/runs/%E0%A4%A'),
      'runId must be percent-encoded UTF-8, got "%E0%A4%A"',
    ],
    [
      'a run id of 3,000 characters',
      get(`/v1/runs/${'r'.repeat(3_000)}`),
      'runId must be 1 to 256 characters, got 3000',
    ],
  ]),
  ...on('GET /v1/runs/:runId/events', undefined, [
    ['an unknown run id', get('/v1/runs/run_nope/events'), [404, 'unknown_run', 'no run "run_nope"']],
    [
      'a run id of 257 escaped characters',
      get(`/v1/runs/${'%41'.repeat(257)}/events`),
      'runId must be 1 to 256 characters, got 257',
    ],
  ]),
  ...on('PUT /v1/admin/keys', admin('keys'), [
    ['an empty body', '', EMPTY],
    ['an array for a body', ['key-1'], NOT_OBJECT],
    [
      'text/plain',
      send({ ...admin('keys')({ keys: ['key-1'] }), type: 'text/plain' }),
      NOT_JSON_TYPE('text/plain'),
    ],
    ['no keys', {}, 'keys must be an array'],
    ['keys a string', { keys: 'key-1' }, 'keys must be an array'],
    ['no key listed', { keys: [] }, 'keys must list at least one key (an empty list would accept any key)'],
    ['a key a number', { keys: [5] }, 'keys[0] must be a string, got number'],
    [
      'a key with a space',
      { keys: ['key-1', 'a b'] },
      'keys[1] must be 1 to 4096 printable ASCII characters without spaces, got a string of 3 characters',
    ],
    [
      'a key without its tenant',
      { keys: [{ key: 'key-1' }] },
      'keys[0].tenant must be a string of 1 to 256 characters',
    ],
    ['the admin key', { keys: [ADMIN] }, "keys[0] is the admin key, which is no tenant's key"],
    [
      '1,001 keys',
      { keys: Array.from({ length: 1_001 }, (_, i) => `key-${i}`) },
      'keys may list at most 1000 keys, got 1001',
    ],
  ]),
  ...on('PUT /v1/admin/build', admin('build'), [
    ['no buildId', {}, BUILD_ID],
    ['buildId a number', { buildId: 5 }, BUILD_ID],
    ['buildId with a space', { buildId: 'b 2' }, BUILD_ID],
    ['tenant empty', { buildId: 'b2', tenant: '' }, 'tenant must be a string of 1 to 256 characters'],
    [
      'a tenant where keys have none',
      { buildId: 'b2', tenant: 'acme' },
      'tenant: the stub accepts any API key, so every client is one tenant; leave tenant out',
    ],
  ]),
];

/** What a refused request must leave as it was. */
async function state(server: StubServer, runId: string) {
  const transcript = server.runs.get(runId);
  const headers = { authorization: `Bearer ${ADMIN}` };
  const [keys, build] = await Promise.all(
    ['keys', 'build'].map(async (path) =>
      (await fetch(`${server.httpUrl}/v1/admin/${path}`, { headers })).json(),
    ),
  );
  return {
    runs: server.runs.list().length,
    status: transcript?.status,
    calls: transcript?.toolCalls.map((call) => ({
      toolName: call.toolName,
      state: call.state,
      arguments: call.arguments,
      decision: call.approval?.decision,
      questions: call.questions?.map((question) => question.status),
    })),
    keys,
    build,
  };
}

/** Sends a request as it is: the body's bytes, its `Content-Type`, its `Content-Length`. */
function sendTo(server: StubServer, sent: Sent): Promise<{ status: number | undefined; body: unknown }> {
  const body =
    sent.body === undefined
      ? undefined
      : typeof sent.body === 'string'
        ? sent.body
        : JSON.stringify(sent.body);
  const headers: Record<string, string | number> = { authorization: `Bearer ${ADMIN}` };
  if (body !== undefined) {
    headers['content-type'] = sent.type ?? 'application/json';
    headers['content-length'] = Buffer.byteLength(body);
  }
  return new Promise((resolve, reject) => {
    const outgoing = request(
      `${server.httpUrl}${sent.path}`,
      { method: sent.method, headers },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        response.on('end', () => resolve({ status: response.statusCode, body: JSON.parse(text) }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

describe('HTTP API refusals', () => {
  let server: StubServer;
  let client: TestClient;
  const ids = { run: '', held: '', asked: '' };
  const fill = (text: string) =>
    text.replace(/\{(run|held|asked)\}/g, (_, name: keyof typeof ids) => ids[name]);

  // One stub for the table: a run in progress with a call held for approval and a call with an open question.
  beforeAll(async () => {
    server = await startStubServer({
      logger: captureLogger(),
      adminKey: ADMIN,
      maxHttpBodyBytes: LIMIT,
      agents: [agent('known', ['charge', 'export'])],
      model: scriptedModel([{ toolCalls: [{ name: 'charge' }, { name: 'export' }] }, { text: 'done' }]),
    });
    client = await TestClient.connect(server.url, {
      tools: [toolDef('charge', true), toolDef('export')],
      features: ['questions'],
    });
    const held = once(server, 'run_event', (info) => info.kind === 'approval_requested');
    ids.run = server.runs.start('known', 'go');
    ids.held = ((await held).data as { callId: string }).callId;
    ids.asked = (await client.next('tool_call')).callId;
    const asked = once(server, 'run_event', (info) => info.kind === 'question_asked');
    client.send({
      type: 'question',
      callId: ids.asked,
      questionId: 'q1',
      question: 'Which warehouse?',
      choices: ['Berlin', 'Lyon'],
    });
    await asked;
  });

  afterAll(async () => {
    await client?.drop();
    await server?.close();
  });

  it.each(ROWS)('refuses %s', async (_label, sent, status, code, message) => {
    const before = await state(server, ids.run);
    expect(before).toMatchObject({
      runs: 1,
      status: 'running',
      calls: [
        { toolName: 'charge', state: 'awaiting_approval', decision: undefined },
        { toolName: 'export', state: 'dispatched', questions: ['open'] },
      ],
    });
    expect(await sendTo(server, { ...sent, path: fill(sent.path) })).toEqual({
      status,
      body: { error: { code, message: fill(message) } },
    });
    expect(await state(server, ids.run)).toEqual(before);
  });
});

describe('HTTP API bounds', () => {
  it('takes what the rules allow at their edges: maxTurns 2^53 - 1, metadata of 16,384 bytes, a JSON content type in any case', async () => {
    const server = await stub({ agents: [agent('known', [])], model: scriptedModel([{ text: 'done' }]) });
    const metadata = { note: 'x'.repeat(16_384 - '{"note":""}'.length) };
    const started = await http(server, 'POST', '/v1/runs', {
      agent: 'known',
      input: 'x',
      maxTurns: Number.MAX_SAFE_INTEGER,
      metadata,
    });
    expect(started.status).toBe(201);
    const { runId } = started.body as { runId: string };
    expect(server.runs.get(runId)).toMatchObject({ maxTurns: Number.MAX_SAFE_INTEGER, metadata });
    for (const type of ['Application/JSON; charset=UTF-8', undefined]) {
      const answer = await fetch(`${server.httpUrl}/v1/runs`, {
        method: 'POST',
        headers: type === undefined ? {} : { 'content-type': type },
        body: new Blob([JSON.stringify({ agent: 'known', input: 'y' })]),
      });
      expect(answer.status).toBe(201);
    }
    // An empty cancel body is read as {}, whatever it is labelled: the run is looked up (it has ended).
    await server.runs.waitFor(runId);
    const cancelled = await fetch(`${server.httpUrl}/v1/runs/${runId}/cancel`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
    });
    expect([cancelled.status, ((await cancelled.json()) as { error: { code: string } }).error.code]).toEqual([
      409,
      'not_allowed',
    ]);
  });
});
