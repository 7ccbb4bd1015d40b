/**
 * The HTTP API, on the same port as the WebSocket endpoint: start runs, read transcripts, decide approvals,
 * cancel runs, follow a run's events (Server-Sent Events). JSON in, JSON out; errors are
 * `{ "error": { "code", "message" } }` with a 4xx/5xx status. Each route is a handler below; bodies are checked
 * against the schemas in `http-bodies.ts`.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PROTOCOL_VERSION } from '../src/wire/protocol';
import { getBuild, listKeys, putBuild, replaceKeys } from './admin';
import { bearerKey, keyAccepted } from './auth';
import type { CallDecision } from './call';
import { answerBody, cancelBody, decisionBody, parseBody, startRunBody } from './http-bodies';
import { duplicateHost, HttpError, pathParam, readJsonBody, requestPath, sendJson } from './http-io';
import type { Run } from './run';
import type { StubService } from './service';
import type { RunStatus } from './transcript';
import { serveUi, UI_PATHS } from './ui/serve';
import { logRefusal, pageRefusal } from './web-pages';

/**
 * Answers one request; `params` are the route's path captures, percent-decoded; `tenant` is the request's
 * (server-stub/tenants.ts): a handler sees and acts on that tenant's runs only.
 */
type Handler = (
  service: StubService,
  request: IncomingMessage,
  response: ServerResponse,
  params: string[],
  tenant: string | undefined,
) => Promise<void> | void;

interface Route {
  method: 'GET' | 'POST' | 'PUT';
  pattern: RegExp;
  handler: Handler;
  /** `false` for the health check and the agent UI's files; `'admin'` for the operator routes (admin key only). */
  auth: boolean | 'admin';
  /** The names of the pattern's captures, each an id (`runId`, `callId`, `questionId`), for {@link pathParam}. */
  params?: readonly string[];
}

/** `GET /v1/health`: up, and which protocol it speaks. */
function health(_service: StubService, _req: IncomingMessage, res: ServerResponse): void {
  sendJson(res, 200, { ok: true, protocol: PROTOCOL_VERSION });
}

/**
 * `GET /v1/agents`: the agents `POST /v1/runs` may start by name, each with the tools no connected client of the
 * tenant offers, and how many of its clients are connected.
 */
function listAgents(
  service: StubService,
  _req: IncomingMessage,
  res: ServerResponse,
  _params: string[],
  tenant: string | undefined,
): void {
  const offered = new Set<string>();
  let clients = 0;
  for (const session of service.sessions.values()) {
    if (session.state !== 'connected' || session.left || session.tenant !== tenant) continue;
    clients += 1;
    for (const name of session.tools.keys()) offered.add(name);
  }
  const agents = [...service.options.agents.values()].map((agent) => ({
    ...agent,
    missingTools: agent.tools.filter((name) => !offered.has(name)),
  }));
  const { info } = service.options.model;
  sendJson(res, 200, { agents, clients, ...(info ? { model: info } : {}) });
}

/** `POST /v1/runs`: starts a run that no client owns. */
async function startRun(
  service: StubService,
  req: IncomingMessage,
  res: ServerResponse,
  _params: string[],
  tenant: string | undefined,
): Promise<void> {
  const { options } = service;
  const body = parseBody(startRunBody, await readJsonBody(req, options.maxHttpBodyBytes));
  let agent = body.agent;
  if (typeof agent === 'string') {
    const known = options.agents.get(agent);
    if (!known) {
      const names = [...options.agents.keys()].join(', ') || 'none';
      throw new HttpError(404, 'unknown_agent', `no agent named ${JSON.stringify(agent)} (known: ${names})`);
    }
    agent = known;
  }
  const started = service.runs.start({
    agent,
    input: body.input,
    startedBy: 'http',
    tenant,
    apiKey: requestKey(req),
    ...(body.maxTurns === undefined ? {} : { maxTurns: body.maxTurns }),
    ...(body.userId === undefined ? {} : { userId: body.userId }),
    toolChoice: body.toolChoice,
    metadata: body.metadata,
  });
  if ('code' in started) throw new HttpError(409, started.code, started.message);
  res.setHeader('location', `/v1/runs/${started.id}`);
  sendJson(res, 201, { runId: started.id, status: started.status });
}

/** `GET /v1/runs`: a summary of every run of the tenant, newest first. */
function listRuns(
  service: StubService,
  _req: IncomingMessage,
  res: ServerResponse,
  _params: string[],
  tenant: string | undefined,
): void {
  sendJson(res, 200, { runs: service.runs.list({ tenant }) });
}

/** `GET /v1/runs/:runId`: the run's transcript. */
function getRun(
  service: StubService,
  _req: IncomingMessage,
  res: ServerResponse,
  [runId]: string[],
  tenant: string | undefined,
): void {
  sendJson(res, 200, findRun(service, runId, tenant).transcript());
}

/** `POST /v1/runs/:runId/cancel`: cancels a run in progress. */
async function cancelRun(
  service: StubService,
  req: IncomingMessage,
  res: ServerResponse,
  [runId]: string[],
  tenant: string | undefined,
): Promise<void> {
  const body = parseBody(cancelBody, await readJsonBody(req, service.options.maxHttpBodyBytes, true));
  const run = findRun(service, runId, tenant);
  const refusal = service.runs.cancel(run.id, body.reason);
  if (refusal) throw new HttpError(409, refusal.code, refusal.message);
  sendJson(res, 200, { runId: run.id, status: run.status });
}

/** `POST /v1/runs/:runId/approvals/:callId`: a human decision on a held call of the run or of a run nested in it. */
async function decide(
  service: StubService,
  req: IncomingMessage,
  res: ServerResponse,
  [runId, callId]: string[],
  tenant: string | undefined,
): Promise<void> {
  const body = parseBody(decisionBody, await readJsonBody(req, service.options.maxHttpBodyBytes));
  const run = findRun(service, runId, tenant);
  const decision: CallDecision = { approved: body.approved, by: 'http' };
  if (body.reason !== undefined) decision.reason = body.reason;
  if (body.arguments !== undefined) decision.arguments = body.arguments;
  if (body.always === true) decision.always = true;
  const refusal = service.approvals.decide(callId ?? '', decision, run.id);
  if (refusal) {
    const status = refusal.code === 'unknown_call' ? 404 : refusal.code === 'too_large' ? 413 : 409;
    throw new HttpError(status, refusal.code, refusal.message);
  }
  sendJson(res, 200, { runId: run.id, callId, ...body });
}

/** `POST /v1/runs/:runId/calls/:callId/questions/:questionId`: a person's answer to a running call's question. */
async function answerQuestion(
  service: StubService,
  req: IncomingMessage,
  res: ServerResponse,
  [runId, callId, questionId]: string[],
  tenant: string | undefined,
): Promise<void> {
  const body = parseBody(answerBody, await readJsonBody(req, service.options.maxHttpBodyBytes));
  const run = findRun(service, runId, tenant);
  const reply =
    body.declined === true
      ? { declined: true as const, ...(body.reason === undefined ? {} : { reason: body.reason }) }
      : { answer: body.answer };
  const refusal = service.questions.answer(run.id, callId ?? '', questionId ?? '', reply, body.dispatch);
  if (refusal) throw new HttpError(refusal.status, refusal.code, refusal.message);
  sendJson(res, 200, {
    runId: run.id,
    callId,
    questionId,
    status: 'declined' in reply ? 'declined' : 'answered',
  });
}

/** `GET /v1/runs/:runId/events`: every event so far, then live ones, then `end` (Server-Sent Events). */
function streamEvents(
  service: StubService,
  req: IncomingMessage,
  res: ServerResponse,
  [runId]: string[],
  tenant: string | undefined,
): void {
  const run = findRun(service, runId, tenant);
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  const write = (event: string, data: unknown) =>
    res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  for (const event of run.replay()) write(event.kind, event.data);
  if (run.status !== 'running') {
    write('end', { status: run.status });
    res.end();
    return;
  }
  const onEvent = (info: { runId: string; kind: string; data: unknown }) => {
    if (info.runId === run.id) write(info.kind, info.data);
  };
  const onEnd = (transcript: { runId: string; status: RunStatus }) => {
    if (transcript.runId !== run.id) return;
    write('end', { status: transcript.status });
    stop();
    res.end();
  };
  const stop = () => {
    service.events.off('run_event', onEvent);
    service.events.off('run_finished', onEnd);
  };
  service.events.on('run_event', onEvent);
  service.events.on('run_finished', onEnd);
  req.on('close', stop);
}

const RUN = ['runId'];

/** Every route, tried in order. */
const ROUTES: readonly Route[] = [
  { method: 'GET', pattern: /^\/v1\/health$/, auth: false, handler: health },
  ...UI_PATHS.map(
    (path): Route => ({
      method: 'GET',
      pattern: new RegExp(`^${path.replaceAll('.', '\\.')}$`),
      auth: false,
      handler: (_service, _req, res) => serveUi(path, res),
    }),
  ),
  { method: 'GET', pattern: /^\/v1\/agents$/, auth: true, handler: listAgents },
  { method: 'POST', pattern: /^\/v1\/runs$/, auth: true, handler: startRun },
  { method: 'GET', pattern: /^\/v1\/runs$/, auth: true, handler: listRuns },
  { method: 'GET', pattern: /^\/v1\/runs\/([^/]+)$/, params: RUN, auth: true, handler: getRun },
  { method: 'GET', pattern: /^\/v1\/runs\/([^/]+)\/events$/, params: RUN, auth: true, handler: streamEvents },
  { method: 'POST', pattern: /^\/v1\/runs\/([^/]+)\/cancel$/, params: RUN, auth: true, handler: cancelRun },
  {
    method: 'POST',
    pattern: /^\/v1\/runs\/([^/]+)\/approvals\/([^/]+)$/,
    params: ['runId', 'callId'],
    auth: true,
    handler: decide,
  },
  {
    method: 'POST',
    pattern: /^\/v1\/runs\/([^/]+)\/calls\/([^/]+)\/questions\/([^/]+)$/,
    params: ['runId', 'callId', 'questionId'],
    auth: true,
    handler: answerQuestion,
  },
  { method: 'GET', pattern: /^\/v1\/admin\/keys$/, auth: 'admin', handler: listKeys },
  { method: 'PUT', pattern: /^\/v1\/admin\/keys$/, auth: 'admin', handler: replaceKeys },
  { method: 'GET', pattern: /^\/v1\/admin\/build$/, auth: 'admin', handler: getBuild },
  { method: 'PUT', pattern: /^\/v1\/admin\/build$/, auth: 'admin', handler: putBuild },
];

/** Builds the request listener of the stub's HTTP server. Never throws; an unexpected failure is a 500. */
export function createHttpHandler(
  service: StubService,
): (request: IncomingMessage, response: ServerResponse) => void {
  const { logger } = service.options;
  return (request, response) => {
    // Before anything else, a preflight included: no answer of the stub depends on which of two names it reads.
    const duplicate = duplicateHost(request);
    if (duplicate !== undefined) {
      sendJson(response, 400, { error: { code: duplicate.code, message: duplicate.message } });
      return;
    }
    const origin = request.headers.origin;
    const cors = origin !== undefined && service.options.corsOrigins.has(origin);
    if (cors) {
      response.setHeader('access-control-allow-origin', origin);
      response.setHeader('vary', 'origin');
    }
    if (request.method === 'OPTIONS' && cors) {
      response.writeHead(204, {
        'access-control-allow-methods': 'GET, POST, PUT, OPTIONS',
        'access-control-allow-headers': 'authorization, content-type',
        'access-control-max-age': '600',
      });
      response.end();
      return;
    }
    route(service, request, response).catch((error: unknown) => {
      if (error instanceof HttpError) {
        if (error.status >= 500 || error.status === 413) logger.warn({ status: error.status }, error.message);
        if (error.status === 413) response.setHeader('connection', 'close');
        sendJson(response, error.status, { error: { code: error.code, message: error.message } });
        return;
      }
      logger.error({ error, url: request.url }, 'HTTP handler failed');
      sendJson(response, 500, {
        error: { code: 'internal', message: 'the stub failed to handle the request' },
      });
    });
  };
}

/** Finds the route for the request, checks the key when the route needs one, and runs its handler. */
async function route(
  service: StubService,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const path = requestPath(request);
  const matching = ROUTES.filter((candidate) => candidate.pattern.test(path));
  if (matching.length === 0) throw new HttpError(404, 'not_found', `no route for ${path}`);
  // Before the method too: a refused page's preflight (OPTIONS) is told why.
  if (matching.some((candidate) => candidate.auth !== false)) {
    const refusal = pageRefusal(service, request);
    if (refusal !== undefined) {
      logRefusal(service, request, refusal);
      throw new HttpError(403, refusal.code, refusal.message);
    }
  }
  const found = matching.find((candidate) => candidate.method === request.method);
  if (!found) {
    response.setHeader('allow', matching.map((candidate) => candidate.method).join(', '));
    throw new HttpError(405, 'method_not_allowed', `${request.method} is not allowed on ${path}`);
  }
  if (found.auth === 'admin') authorizeAdmin(service, request);
  const tenant = found.auth === true ? authorize(service, request) : undefined;
  const params = (found.pattern.exec(path) ?? [])
    .slice(1)
    .map((segment, index) => pathParam(segment, found.params?.[index] ?? 'path segment'));
  await found.handler(service, request, response, params, tenant);
}

/** The key of the request's `Authorization: Bearer <key>` header, if it has one of that form. */
function requestKey(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization;
  return header === undefined ? undefined : bearerKey(header);
}

/**
 * Checks the request's `Authorization: Bearer <key>` against the server's keys (any key passes when none are
 * configured), and returns the request's tenant (server-stub/tenants.ts).
 * @throws HttpError 401 `unauthorized` when the key is missing or unknown.
 */
function authorize(service: StubService, request: IncomingMessage): string | undefined {
  const { keys } = service;
  if (!keys.checked) return undefined;
  const key = requestKey(request);
  if (key === undefined) {
    throw new HttpError(401, 'unauthorized', 'missing API key: send "Authorization: Bearer <key>"');
  }
  // Accepted first: that comparison takes the same time whatever the key, a look-up of its tenant does not.
  const tenant = keys.accepts(key) ? keys.tenantOf(key) : null;
  if (tenant === null) throw new HttpError(401, 'unauthorized', 'invalid API key');
  return tenant;
}

/**
 * Checks the request's `Authorization: Bearer <key>` against the admin key: a tenant's key is refused here.
 * @throws HttpError 404 `not_found` when the stub has no admin key (the operator routes are off), 401
 *   `unauthorized` when the key is missing or not the admin key.
 */
function authorizeAdmin(service: StubService, request: IncomingMessage): void {
  const { adminKey } = service.options;
  if (adminKey === undefined) {
    throw new HttpError(
      404,
      'not_found',
      'the operator routes are off: start the stub with an admin key (--admin-key, TOOLWIRE_STUB_ADMIN_KEY, or startStubServer({ adminKey }))',
    );
  }
  const header = request.headers.authorization;
  const key = header === undefined ? undefined : bearerKey(header);
  if (key === undefined) {
    throw new HttpError(401, 'unauthorized', 'missing admin key: send "Authorization: Bearer <admin key>"');
  }
  if (!keyAccepted(new Set([adminKey]), key)) throw new HttpError(401, 'unauthorized', 'not the admin key');
}

/**
 * The run with this id, if it is the tenant's (another tenant's run reads as unknown).
 * @throws HttpError 404 `unknown_run`.
 */
function findRun(service: StubService, runId: string | undefined, tenant: string | undefined): Run {
  const found = runId === undefined ? undefined : service.runs.get(runId);
  const run = found?.tenant === tenant ? found : undefined;
  if (!run) throw new HttpError(404, 'unknown_run', `no run ${JSON.stringify(runId)}`);
  return run;
}
