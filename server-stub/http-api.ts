/**
 * The HTTP API, on the same port as the WebSocket endpoint: start runs, read transcripts, decide approvals,
 * cancel runs, follow a run's events (Server-Sent Events). JSON in, JSON out; errors are
 * `{ "error": { "code", "message" } }` with a 4xx/5xx status.
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { agentDefinitionSchema, PROTOCOL_VERSION } from '../src/wire/protocol';
import { bearerKey, keyAccepted } from './auth';
import type { StubService } from './service';
import { serveUi, UI_PATHS } from './ui/serve';

type Handler = (request: IncomingMessage, response: ServerResponse, params: string[]) => Promise<void> | void;

interface Route {
  method: 'GET' | 'POST';
  pattern: RegExp;
  handler: Handler;
  /** `false` only for the health check. */
  auth: boolean;
}

/** A refusal with its HTTP status. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Builds the request listener of the stub's HTTP server. Never throws; an unexpected failure is a 500. */
export function createHttpHandler(
  service: StubService,
): (request: IncomingMessage, response: ServerResponse) => void {
  const { options } = service;
  const routes: Route[] = [
    {
      method: 'GET',
      pattern: /^\/v1\/health$/,
      auth: false,
      handler: (_req, res) => json(res, 200, { ok: true, protocol: PROTOCOL_VERSION }),
    },
    ...UI_PATHS.map(
      (path): Route => ({
        method: 'GET',
        pattern: new RegExp(`^${path.replaceAll('.', '\\.')}$`),
        auth: false,
        handler: (_req, res) => serveUi(path, res),
      }),
    ),
    { method: 'GET', pattern: /^\/v1\/agents$/, auth: true, handler: listAgents },
    { method: 'POST', pattern: /^\/v1\/runs$/, auth: true, handler: startRun },
    {
      method: 'GET',
      pattern: /^\/v1\/runs$/,
      auth: true,
      handler: (_req, res) => json(res, 200, { runs: service.runs.list() }),
    },
    { method: 'GET', pattern: /^\/v1\/runs\/([^/]+)$/, auth: true, handler: getRun },
    { method: 'GET', pattern: /^\/v1\/runs\/([^/]+)\/events$/, auth: true, handler: streamEvents },
    { method: 'POST', pattern: /^\/v1\/runs\/([^/]+)\/cancel$/, auth: true, handler: cancelRun },
    { method: 'POST', pattern: /^\/v1\/runs\/([^/]+)\/approvals\/([^/]+)$/, auth: true, handler: decide },
  ];

  /** The agents `POST /v1/runs` may start by name, each with the tools no connected client offers. */
  function listAgents(_req: IncomingMessage, res: ServerResponse): void {
    const offered = new Set<string>();
    let clients = 0;
    for (const session of service.sessions.values()) {
      if (session.state !== 'connected') continue;
      clients += 1;
      for (const name of session.tools.keys()) offered.add(name);
    }
    const agents = [...options.agents.values()].map((agent) => ({
      ...agent,
      missingTools: agent.tools.filter((name) => !offered.has(name)),
    }));
    json(res, 200, { agents, clients, ...(options.model.info ? { model: options.model.info } : {}) });
  }

  async function startRun(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = asObject(await readJson(req, options.maxHttpBodyBytes));
    let agent = body.agent;
    if (typeof agent === 'string') {
      const known = options.agents.get(agent);
      if (!known) {
        const names = [...options.agents.keys()].join(', ') || 'none';
        throw new HttpError(
          404,
          'unknown_agent',
          `no agent named ${JSON.stringify(agent)} (known: ${names})`,
        );
      }
      agent = known;
    } else {
      const parsed = agentDefinitionSchema.safeParse(agent);
      if (!parsed.success) {
        const detail = parsed.error.issues
          .slice(0, 3)
          .map(
            (issue) =>
              `agent${issue.path.map((key) => `.${String(key)}`).join('')}: ${issue.code.replaceAll('_', ' ')}`,
          )
          .join('; ');
        throw new HttpError(
          400,
          'invalid_request',
          `agent must be an agent name or an agent definition (${detail})`,
        );
      }
      agent = parsed.data;
    }
    if (typeof body.input !== 'string') throw new HttpError(400, 'invalid_request', 'input must be a string');
    const maxTurns = body.maxTurns;
    if (
      maxTurns !== undefined &&
      (typeof maxTurns !== 'number' || !Number.isInteger(maxTurns) || maxTurns < 1)
    ) {
      throw new HttpError(400, 'invalid_request', 'maxTurns must be an integer ≥ 1');
    }
    const started = service.runs.start({
      agent: agent as NonNullable<ReturnType<typeof options.agents.get>>,
      input: body.input,
      startedBy: 'http',
      ...(maxTurns === undefined ? {} : { maxTurns }),
    });
    if ('code' in started) throw new HttpError(409, started.code, started.message);
    res.setHeader('location', `/v1/runs/${started.id}`);
    json(res, 201, { runId: started.id, status: started.status });
  }

  function getRun(_req: IncomingMessage, res: ServerResponse, [runId]: string[]): void {
    json(res, 200, findRun(runId).transcript());
  }

  async function cancelRun(req: IncomingMessage, res: ServerResponse, [runId]: string[]): Promise<void> {
    const body = asObject(await readJson(req, options.maxHttpBodyBytes, true));
    if (body.reason !== undefined && typeof body.reason !== 'string') {
      throw new HttpError(400, 'invalid_request', 'reason must be a string');
    }
    const run = findRun(runId);
    const refusal = service.runs.cancel(run.id, body.reason as string | undefined);
    if (refusal) throw new HttpError(409, refusal.code, refusal.message);
    json(res, 200, { runId: run.id, status: run.status });
  }

  async function decide(req: IncomingMessage, res: ServerResponse, [runId, callId]: string[]): Promise<void> {
    const body = asObject(await readJson(req, options.maxHttpBodyBytes));
    if (typeof body.approved !== 'boolean')
      throw new HttpError(400, 'invalid_request', 'approved must be a boolean');
    if (body.reason !== undefined && typeof body.reason !== 'string') {
      throw new HttpError(400, 'invalid_request', 'reason must be a string');
    }
    const run = findRun(runId);
    const reason = body.reason as string | undefined;
    const refusal = service.approvals.decide(
      callId ?? '',
      { approved: body.approved, by: 'http', ...(reason === undefined ? {} : { reason }) },
      run.id,
    );
    if (refusal)
      throw new HttpError(refusal.code === 'unknown_call' ? 404 : 409, refusal.code, refusal.message);
    json(res, 200, {
      runId: run.id,
      callId,
      approved: body.approved,
      ...(reason === undefined ? {} : { reason }),
    });
  }

  function streamEvents(req: IncomingMessage, res: ServerResponse, [runId]: string[]): void {
    const run = findRun(runId);
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
    const onEnd = (transcript: { runId: string; status: string }) => {
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

  function findRun(runId: string | undefined) {
    const run = runId === undefined ? undefined : service.runs.get(runId);
    if (!run) throw new HttpError(404, 'unknown_run', `no run ${JSON.stringify(runId)}`);
    return run;
  }

  return (request, response) => {
    response.setHeader('access-control-allow-origin', '*');
    const url = new URL(request.url ?? '/', 'http://stub.invalid');
    if (request.method === 'OPTIONS') {
      response.writeHead(204, {
        'access-control-allow-methods': 'GET, POST, OPTIONS',
        'access-control-allow-headers': 'authorization, content-type',
        'access-control-max-age': '600',
      });
      response.end();
      return;
    }
    const handle = async () => {
      const path = url.pathname;
      const matching = routes.filter((route) => route.pattern.test(path));
      if (matching.length === 0) throw new HttpError(404, 'not_found', `no route for ${path}`);
      const route = matching.find((candidate) => candidate.method === request.method);
      if (!route) {
        response.setHeader('allow', matching.map((candidate) => candidate.method).join(', '));
        throw new HttpError(405, 'method_not_allowed', `${request.method} is not allowed on ${path}`);
      }
      if (route.auth) authorize(request);
      const params = (route.pattern.exec(path) ?? []).slice(1).map(decodeSegment);
      await route.handler(request, response, params);
    };
    handle().catch((error: unknown) => {
      if (error instanceof HttpError) {
        if (error.status >= 500 || error.status === 413)
          options.logger.warn({ status: error.status }, error.message);
        if (error.status === 413) response.setHeader('connection', 'close');
        json(response, error.status, { error: { code: error.code, message: error.message } });
        return;
      }
      options.logger.error({ error, url: request.url }, 'HTTP handler failed');
      json(response, 500, { error: { code: 'internal', message: 'the stub failed to handle the request' } });
    });
  };

  function authorize(request: IncomingMessage): void {
    if (options.apiKeys === undefined) return;
    const header = request.headers.authorization;
    const key = header === undefined ? undefined : bearerKey(header);
    if (key === undefined) {
      throw new HttpError(401, 'unauthorized', 'missing API key: send "Authorization: Bearer <key>"');
    }
    if (!keyAccepted(options.apiKeys, key)) throw new HttpError(401, 'unauthorized', 'invalid API key');
  }
}

function json(response: ServerResponse, status: number, body: unknown): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    ...(status === 401 ? { 'www-authenticate': 'Bearer' } : {}),
  });
  response.end(text);
}

/** Reads a JSON body of at most `limit` bytes. An empty body is `{}` when `optional`, else a 400. */
async function readJson(request: IncomingMessage, limit: number, optional = false): Promise<unknown> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    throw new HttpError(413, 'payload_too_large', `request body is ${declared} bytes; the limit is ${limit}`);
  }
  const text = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      // Stop keeping the body but keep draining it, so the 413 can still be written on this connection.
      request.off('data', onData);
      request.resume();
      reject(new HttpError(413, 'payload_too_large', `request body exceeds ${limit} bytes`));
    };
    request.on('data', onData);
    request.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.once('error', reject);
  });
  if (text.trim() === '') {
    if (optional) return {};
    throw new HttpError(400, 'invalid_request', 'request body is empty; a JSON object is required');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, 'invalid_json', `request body is not valid JSON: ${(error as Error).message}`);
  }
}

function asObject(value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError(400, 'invalid_request', 'request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(400, 'invalid_request', `malformed path segment ${JSON.stringify(segment)}`);
  }
}
