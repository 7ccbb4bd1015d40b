/**
 * `startStubServer`: one `http.Server` carrying the WebSocket endpoint (`/` and `/v1/ws`) and the HTTP API.
 *
 * @module
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { EventEmitter } from 'eventemitter3';
import { WebSocketServer } from 'ws';
import { Agent, agentDefinition } from '../src/client/agent';
import { type AgentDefinition, CLOSE_CODES, SUBPROTOCOL } from '../src/wire/protocol';
import { closeSocket } from './close-socket';
import type { StubEvents } from './events';
import { type ApiKeyEntry, buildIdProblem } from './fleet';
import { createHttpHandler } from './http-api';
import { duplicateHost, requestPath } from './http-io';
import type { Model } from './model';
import { resolveStubOptions, type StubServerOptions } from './options';
import { type SessionInfo, StubService } from './service';
import { acceptSocket } from './socket-handler';
import type { RunSummary, RunTranscript } from './transcript';
import { logRefusal, pageRefusal, reachableWithoutKeys } from './web-pages';

/** Paths that accept the WebSocket upgrade. */
export const WEBSOCKET_PATHS = ['/', '/v1/ws'] as const;

/** Read access to the runs of a stub server (and a way to start one from code). */
export interface StubRuns {
  /** A copy of the run's transcript, or `undefined` for an unknown id. */
  get(runId: string): RunTranscript | undefined;
  /** Every run, newest first. */
  list(): RunSummary[];
  /**
   * Resolves with the transcript once the run has ended.
   * @throws Error when no run has this id.
   */
  waitFor(runId: string): Promise<RunTranscript>;
  /**
   * Starts a run as `POST /v1/runs` does, with no client owning it, for the tenant of `options.apiKey`
   * (server-stub/tenants.ts: its calls go only to sessions opened with that key).
   * @param agent - an `Agent` (its tools by name), an agent definition, or the name of one given in
   *   `options.agents`.
   * @param options - `apiKey`: @default the first of the server's `apiKeys` (none needed without them).
   * @returns the run id.
   * @throws Error when `agent` names no known agent, or `options.apiKey` is not a key the server accepts (the
   *   message never shows it).
   */
  start(
    // biome-ignore lint/suspicious/noExplicitAny: an agent of any output.
    agent: Agent<any> | AgentDefinition | string,
    input: string,
    options?: { maxTurns?: number; apiKey?: string },
  ): string;
  /**
   * Cancels a run in progress, as `POST /v1/runs/:runId/cancel` does.
   * @returns `false` when the run is unknown or already ended.
   */
  cancel(runId: string, reason?: string): boolean;
}

/** A running stub server. */
export interface StubServer {
  /** WebSocket URL for clients, e.g. `ws://127.0.0.1:49152` (the path `/v1/ws` works too). */
  readonly url: string;
  /** Base URL of the HTTP API, e.g. `http://127.0.0.1:49152`. */
  readonly httpUrl: string;
  /** The bound TCP port. */
  readonly port: number;
  readonly runs: StubRuns;
  /** The model that plays every run: `options.model`, or the default scripted model with no script. */
  readonly model: Model;
  /** Sessions, runs and refused frames as they happen. */
  readonly events: EventEmitter<StubEvents>;
  /** The live sessions (connected, or detached within their grace period), oldest first. */
  sessions(): SessionInfo[];
  /**
   * Replaces the accepted API keys at run time (docs/protocol/keys.md): each a string (a tenant of its own) or
   * `{ key, tenant }` (another key of an existing tenant: a rotation; its sessions resume with it). A socket
   * opened with a key no longer accepted is closed with 4001 `API key revoked`. A tenant whose keys move into
   * another goes on as that one (a tool of its workers whose `fleet` limits disagree with the other's workers' is
   * refused, as in a `tools_update`); a tenant left with no key is closed, its runs cancelled
   * (docs/protocol/stub.md, "Tenants"). An empty list accepts any key.
   * From outside the process: `PUT /v1/admin/keys`, or `toolwire-stub --api-keys-file` and SIGHUP.
   * @returns how many sockets were closed 4001.
   * @throws TypeError when a key or tenant is not a non-empty string, or a key is not 1 to 4,096 printable ASCII
   *   characters without spaces (what a client can send).
   */
  setApiKeys(keys: readonly ApiKeyEntry[]): number;
  /**
   * Sets the build that runs no client started are pinned to (`welcome.buildPolicy` becomes `current`), or
   * `undefined` to pin them to the first build that takes one of their calls. Runs already pinned keep theirs.
   * @param tenant - the tenant whose current build this is (a tenant name as `apiKeys` gives it: a key listed
   *   alone is its own tenant); left out, the build of every tenant that has none of its own.
   * @throws TypeError when `buildId` is not 1 to 128 printable ASCII characters without spaces, or `undefined`;
   *   or when `tenant` is given and is not a non-empty string.
   */
  setCurrentBuild(buildId: string | undefined, tenant?: string): void;
  /**
   * Cancels every run, closes every socket with 4050 and stops listening. Idempotent; resolves when the port is
   * free.
   */
  close(): Promise<void>;
}

/** Answers an upgrade with `status` (e.g. `400 Bad Request`) and `{ error }` as JSON, and closes the socket. */
function refuseUpgrade(socket: Duplex, status: string, error: { code: string; message: string }): void {
  const body = JSON.stringify({ error });
  socket.end(
    `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/**
 * Starts a stand-in for the hosted model service: protocol v1 over WebSocket plus the HTTP API, bound to
 * 127.0.0.1 on a free port by default.
 *
 * @throws OptionsError `invalid_option` for a bad option (checked before anything is bound).
 * @throws Error from `listen` (e.g. `EADDRINUSE`), as the promise's rejection.
 * @example
 * ```ts
 * const stub = await startStubServer({ apiKeys: ['test-key'], model: scriptedModel([{ text: 'hi' }]) });
 * console.log(stub.url); // ws://127.0.0.1:49152
 * await stub.close();
 * ```
 */
export async function startStubServer(options: StubServerOptions = {}): Promise<StubServer> {
  const resolved = resolveStubOptions(options);
  const service = new StubService(resolved);
  const { logger } = resolved;
  const http = createServer(createHttpHandler(service));
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: resolved.maxPayloadBytes,
    handleProtocols: (protocols) => (protocols.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
  });
  http.on('upgrade', (request, socket, head) => {
    socket.on('error', (error) => logger.debug({ error: error.message }, 'socket error during upgrade'));
    const duplicate = duplicateHost(request);
    if (duplicate !== undefined) {
      refuseUpgrade(socket, '400 Bad Request', { code: duplicate.code, message: duplicate.message });
      return;
    }
    if (!(WEBSOCKET_PATHS as readonly string[]).includes(requestPath(request)) || service.closed) {
      const status = service.closed ? '503 Service Unavailable' : '404 Not Found';
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const refusal = pageRefusal(service, request, true);
    if (refusal !== undefined) {
      logRefusal(service, request, refusal);
      refuseUpgrade(socket, '403 Forbidden', refusal);
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => acceptSocket(service, ws, request));
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(resolved.port, resolved.host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  http.on('error', (error) => logger.error({ error: error.message }, 'HTTP server error'));
  const port = (http.address() as AddressInfo).port;
  const host = resolved.host.includes(':') ? `[${resolved.host}]` : resolved.host;
  if (resolved.apiKeys === undefined) {
    logger.warn({}, 'no apiKeys configured: accepting any API key (or none)');
    const reachable = reachableWithoutKeys(resolved.host, port);
    if (reachable !== undefined) logger.warn({ host: resolved.host, port }, reachable);
  }
  logger.info({ url: `ws://${host}:${port}` }, 'toolwire stub listening');

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      service.shutdown();
      const sockets = [...wss.clients];
      await Promise.all(
        sockets.map(
          (ws) =>
            new Promise<void>((resolve) => {
              if (ws.readyState === ws.CLOSED) return resolve();
              ws.once('close', () => resolve());
              closeSocket(ws, CLOSE_CODES.goingAway, 'service shutting down');
            }),
        ),
      );
      wss.close();
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    })();
    return closing;
  };

  const runs: StubRuns = {
    get: (runId) => service.runs.get(runId)?.transcript(),
    list: () => service.runs.list(),
    waitFor: (runId) => service.runs.waitFor(runId),
    start(agent, input, startOptions = {}) {
      const definition =
        typeof agent === 'string'
          ? resolved.agents.get(agent)
          : agent instanceof Agent
            ? agentDefinition(agent)
            : agent;
      if (!definition) throw new Error(`no agent named ${JSON.stringify(agent)}`);
      const apiKey = startOptions.apiKey ?? service.keys.entries()[0]?.[0];
      const tenant = service.keys.tenantOf(apiKey);
      if (tenant === null) throw new Error('runs.start: options.apiKey is not an accepted API key');
      const started = service.runs.start({
        agent: definition,
        input,
        startedBy: 'api',
        tenant,
        apiKey,
        ...(startOptions.maxTurns === undefined ? {} : { maxTurns: startOptions.maxTurns }),
      });
      if ('code' in started) throw new Error(started.message);
      return started.id;
    },
    cancel: (runId, reason) => service.runs.cancel(runId, reason) === undefined,
  };

  return {
    url: `ws://${host}:${port}`,
    httpUrl: `http://${host}:${port}`,
    port,
    runs,
    model: resolved.model,
    events: service.events,
    sessions: () => service.sessionInfo(),
    setApiKeys: (keys) => service.setApiKeys(keys),
    setCurrentBuild: (buildId, tenant) => {
      const problem = buildId === undefined ? undefined : buildIdProblem(buildId);
      if (problem !== undefined)
        throw new TypeError(`setCurrentBuild: buildId ${problem.replace(/, got/, ' or undefined, got')}`);
      if (tenant !== undefined && (typeof tenant !== 'string' || tenant === ''))
        throw new TypeError('setCurrentBuild: tenant must be a non-empty string or undefined');
      const named = tenant === undefined ? undefined : service.keys.tenantNamed(tenant);
      if (tenant !== undefined && named === undefined)
        throw new TypeError('setCurrentBuild: no accepted key belongs to that tenant');
      service.setCurrentBuild(buildId, named);
    },
    close,
  };
}
