/**
 * The load driver: plays the service and sends `add` calls to one subject, keeping a fixed number in flight on
 * one connection and timing each call until its result. One process per session, pinned to its own core.
 *
 * - `protocol`: a minimal protocol v1 service on `ws` and src/wire/protocol.ts (hello → welcome, `tool_call` →
 *   `tool_result` → `ack`, ping → pong). Acks are coalesced as the stub's are (server-stub/session.ts): they ride
 *   on the next `tool_call`, or go out together in one `ack` frame after the current task. Frames are trusted on the hot path; `validate` decodes every one
 *   with `decodeClientFrame` (the tests use it to prove the subjects speak the protocol).
 * - `socketio`: a Socket.IO server calling `socket.emitWithAck('tool_call', …)`.
 * - `mcp`: an MCP `Client` calling `callTool` on the subject's MCP server over Streamable HTTP.
 *
 * Call ids are the stub's (`call_` and a random UUID, 41 characters: ./lib/ids.ts), in the `protocol` and `socketio`
 * drivers alike, and the `protocol` driver's calls name one run as the stub names it (`run_` and a UUID). MCP has no
 * call id of ours: its requests carry the SDK's JSON-RPC ids.
 *
 * @module
 */
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server as SocketIoServer, type Socket as SocketIoSocket } from 'socket.io';
import { type WebSocket, WebSocketServer } from 'ws';
import { decodeClientFrame, encodeFrame } from '../src/wire/codec';
import {
  answeredFeatures,
  type ClientFrame,
  FEATURES,
  PROTOCOL_DEFAULTS,
  PROTOCOL_VERSION,
  SUBPROTOCOL,
} from '../src/wire/protocol';
import { newCallId, newRunId } from './lib/ids';
import { serve } from './lib/ipc';
import { type LatencySummary, summarize } from './lib/stats';

/**
 * Which tool a call is for: `add` answers at once, `size` answers with the length of its `data` argument (the
 * argument-size scaling), `hold` waits until the subject is told to release.
 */
export type ToolName = 'add' | 'size' | 'hold';
/** The kinds of service the driver can play. */
export type DriverKind = 'protocol' | 'socketio' | 'mcp';
/**
 * What the `protocol` driver's `tool_call`s carry. `stub`: what the stub (server-stub/call.ts `frame`) sends a
 * client of default options — every feature it offers but `trace_context` taken in `welcome` (with the stub's
 * `leaseMs`), and on each call `deadlineMs`, `depth: 0`, the run's `agentName` and the `sessionId` of the session
 * that started the run. `plain`: no features; only `deadlineMs` and `depth: 0` besides the ids, tool and
 * arguments. @default 'stub'
 */
export type FrameKind = 'plain' | 'stub';
/** The stub's default lease terms (server-stub/options.ts), answered with the `lease` feature. */
const STUB_LEASE = { leaseMs: 45_000, maxCallDurationMs: 86_400_000 };
/** The agent the stub's calls name (`call_context`), as a run's agent is named. */
const STUB_AGENT = 'Assistant';
/** The session that started the stub's runs (`call_context`), as a session id of the stub looks. */
const STUB_SESSION = 'sess_4f1c2a9e7b3d';

/** One way of sending calls to a subject. `done(ok)` is called once per call, `ok` when the output is right. */
interface Link {
  readonly ready: Promise<void>;
  call(tool: ToolName, seq: number, done: (ok: boolean) => void): void;
  /** Frames the subject got wrong (protocol `error`s, unknown call ids, invalid frames). */
  readonly faults: string[];
  close(): Promise<void>;
}

/** The `data` of every `size` call: `argBytes` characters (set by `run`). */
let sizeData = '';
const expected = (tool: ToolName, seq: number) =>
  tool === 'add' ? String(seq + 1) : tool === 'size' ? String(sizeData.length) : 'released';
const argumentsOf = (tool: ToolName, seq: number) =>
  tool === 'add' ? { a: seq, b: 1 } : tool === 'size' ? { data: sizeData } : {};

/**
 * A minimal protocol v1 service for `clients` clients (1 unless the scaling asks for more): calls go to them in
 * turn, each connection with its own coalesced acks.
 */
class ProtocolLink implements Link {
  readonly ready: Promise<void>;
  readonly faults: string[] = [];
  readonly url: Promise<string>;
  /** Size of the first `hello` received, in bytes (UTF-8). */
  helloBytes = 0;
  /** The text of the last `tool_result` received (the tests compare the subjects' frames). */
  lastResult = '';
  readonly #server: WebSocketServer;
  readonly #pending = new Map<string, { tool: ToolName; seq: number; done: (ok: boolean) => void }>();
  readonly #validate: boolean;
  readonly #frames: FrameKind;
  readonly #sockets: WebSocket[] = [];
  readonly #acks = new Map<WebSocket, string[]>();
  /** The run every call is part of, named as the stub names a run (server-stub/runs.ts): `run_` and a UUID. */
  readonly #runId = newRunId();
  #next = 0;

  constructor(validate: boolean, clients = 1, frames: FrameKind = 'stub') {
    this.#validate = validate;
    this.#frames = frames;
    this.#server = new WebSocketServer({
      host: '127.0.0.1',
      port: 0,
      handleProtocols: (offered) => (offered.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
    });
    this.url = new Promise((resolve) =>
      this.#server.once('listening', () =>
        resolve(`ws://127.0.0.1:${(this.#server.address() as AddressInfo).port}`),
      ),
    );
    this.ready = new Promise((resolve) => {
      let welcomed = 0;
      const onWelcomed = () => {
        welcomed += 1;
        if (welcomed === clients) resolve();
      };
      this.#server.on('connection', (socket) => {
        this.#sockets.push(socket);
        this.#acks.set(socket, []);
        socket.on('message', (data: Buffer) => this.#onMessage(socket, data.toString(), onWelcomed));
      });
    });
  }

  #onMessage(socket: WebSocket, text: string, welcomed: () => void): void {
    let frame: ClientFrame;
    if (this.#validate) {
      const decoded = decodeClientFrame(text);
      if (!decoded.ok) {
        this.faults.push(`${decoded.code}: ${decoded.message}`);
        return;
      }
      frame = decoded.frame;
    } else frame = JSON.parse(text) as ClientFrame;
    switch (frame.type) {
      case 'tool_result': {
        const call = this.#pending.get(frame.callId);
        if (!call) {
          this.faults.push(`tool_result for unknown call ${frame.callId}`);
          return;
        }
        this.#pending.delete(frame.callId);
        this.lastResult = text;
        const acks = this.#acks.get(socket)!;
        acks.push(frame.callId);
        if (acks.length === 1) void Promise.resolve().then(() => this.#flushAcks(socket));
        call.done(frame.status === 'ok' && frame.output === expected(call.tool, call.seq));
        return;
      }
      case 'hello': {
        const decoded = decodeClientFrame(text);
        if (!decoded.ok || frame.protocol !== PROTOCOL_VERSION) {
          this.faults.push(`bad hello: ${text.slice(0, 200)}`);
          return;
        }
        if (this.helloBytes === 0) this.helloBytes = Buffer.byteLength(text);
        socket.send(
          encodeFrame({
            type: 'welcome',
            sessionId: 'bench-session',
            resumed: false,
            heartbeatIntervalMs: PROTOCOL_DEFAULTS.heartbeatIntervalMs,
            maxPayloadBytes: PROTOCOL_DEFAULTS.maxPayloadBytes,
            sessionGraceMs: PROTOCOL_DEFAULTS.sessionGraceMs,
            ...(this.#frames === 'stub' && frame.features !== undefined
              ? { features: answeredFeatures(frame.features, new Set(FEATURES)), ...STUB_LEASE }
              : {}),
          }),
        );
        welcomed();
        return;
      }
      case 'ping':
        socket.send(encodeFrame({ type: 'pong', ...(frame.id === undefined ? {} : { id: frame.id }) }));
        return;
      case 'pong':
      case 'lease':
        return;
      case 'error':
        this.faults.push(`error frame: ${frame.code} ${frame.message}`);
        return;
      default:
        this.faults.push(`unexpected ${frame.type} frame`);
    }
  }

  #flushAcks(socket: WebSocket): void {
    const callIds = this.#acks.get(socket)!;
    if (callIds.length === 0) return;
    this.#acks.set(socket, []);
    socket.send(
      encodeFrame(callIds.length === 1 ? { type: 'ack', callId: callIds[0]! } : { type: 'ack', callIds }),
    );
  }

  call(tool: ToolName, seq: number, done: (ok: boolean) => void): void {
    const callId = newCallId();
    this.#pending.set(callId, { tool, seq, done });
    const socket = this.#sockets[this.#next++ % this.#sockets.length]!;
    const pendingAcks = this.#acks.get(socket)!;
    const acks = pendingAcks.length > 0 ? pendingAcks : undefined;
    if (acks) this.#acks.set(socket, []);
    socket.send(
      encodeFrame({
        type: 'tool_call',
        callId,
        runId: this.#runId,
        toolName: tool,
        arguments: argumentsOf(tool, seq),
        // As the stub sends them: the service's deadline (the client arms a timer for it) and the run depth, and
        // with `call_context` (a `stub` driver) the run's agent and the session that started the run.
        deadlineMs: PROTOCOL_DEFAULTS.callDeadlineMs,
        depth: 0,
        ...(this.#frames === 'stub' ? { agentName: STUB_AGENT, sessionId: STUB_SESSION } : {}),
        ...(acks ? { acks } : {}),
      }),
    );
  }

  async close(): Promise<void> {
    for (const client of this.#server.clients) client.terminate();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** A Socket.IO server: each call is `emitWithAck('tool_call', …)`. */
class SocketIoLink implements Link {
  readonly ready: Promise<void>;
  readonly faults: string[] = [];
  readonly url: Promise<string>;
  readonly #http: HttpServer;
  readonly #io: SocketIoServer;
  #socket: SocketIoSocket | undefined;

  constructor() {
    this.#http = createServer();
    this.#io = new SocketIoServer(this.#http, { transports: ['websocket'], serveClient: false });
    this.ready = new Promise((resolve) =>
      this.#io.once('connection', (socket) => {
        this.#socket = socket;
        resolve();
      }),
    );
    this.url = new Promise((resolve) =>
      this.#http.listen(0, '127.0.0.1', () =>
        resolve(`http://127.0.0.1:${(this.#http.address() as AddressInfo).port}`),
      ),
    );
  }

  call(tool: ToolName, seq: number, done: (ok: boolean) => void): void {
    const args = tool === 'add' ? { a: seq, b: 1 } : {};
    this.#socket!.emitWithAck('tool_call', { callId: newCallId(), toolName: tool, arguments: args }).then(
      (result: { status: string; output: string }) =>
        done(result.status === 'ok' && result.output === expected(tool, seq)),
      (error: unknown) => {
        this.faults.push(String(error));
        done(false);
      },
    );
  }

  async close(): Promise<void> {
    await this.#io.close();
  }
}

/**
 * The MCP transport passes one AbortSignal to every request's `fetch`, which adds an abort listener per request
 * in flight: past 1,500 of them Node prints a MaxListenersExceededWarning per request (hundreds per run), though
 * each listener goes when its request ends. Only that warning is silenced, in the driver process.
 */
let warningsQuieted = false;
function quietAbortListenerWarnings(): void {
  if (warningsQuieted) return;
  warningsQuieted = true;
  const shown = process.listeners('warning');
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.name === 'MaxListenersExceededWarning' && warning.message.includes('abort listeners')) return;
    for (const listener of shown) listener(warning);
  });
}

/** An MCP client over Streamable HTTP: each call is `callTool`. */
class McpLink implements Link {
  readonly ready: Promise<void>;
  readonly faults: string[] = [];
  readonly #client = new McpClient({ name: 'toolwire-bench', version: '0.0.0' });

  constructor(url: string) {
    quietAbortListenerWarnings();
    this.ready = this.#client.connect(new StreamableHTTPClientTransport(new URL(url)));
  }

  call(tool: ToolName, seq: number, done: (ok: boolean) => void): void {
    const args = argumentsOf(tool, seq);
    this.#client.callTool({ name: tool, arguments: args }, undefined, { timeout: 600_000 }).then(
      (result) => {
        const content = result.content as Array<{ type: string; text?: string }> | undefined;
        done(result.isError !== true && content?.[0]?.text === expected(tool, seq));
      },
      (error: unknown) => {
        this.faults.push(String(error));
        done(false);
      },
    );
  }

  async close(): Promise<void> {
    await this.#client.close();
  }
}

/** What `run` measures. */
export interface LoadResult {
  completed: number;
  errors: number;
  elapsedMs: number;
  callsPerSecond: number;
  latency: LatencySummary;
  /** CPU time the driver itself spent per call, in µs (a driver near saturation would cap every subject). */
  driverCpuUs: number;
}

/** Options of {@link runLoad}: stop after `durationMs` or after `calls` calls, whichever is given. */
export interface LoadOptions {
  tool: ToolName;
  inFlight: number;
  /** Characters of `data` in each `size` call. */
  argBytes?: number;
  durationMs?: number;
  calls?: number;
}

const MAX_SAMPLES = 2_000_000;
let sequence = 0;

/** Keeps `inFlight` calls outstanding until the time or the call budget is spent, then waits for the rest. */
export function runLoad(link: Link, options: LoadOptions): Promise<LoadResult> {
  const { tool, inFlight } = options;
  if (options.argBytes !== undefined && sizeData.length !== options.argBytes)
    sizeData = 'x'.repeat(options.argBytes);
  const budget = options.calls ?? Number.POSITIVE_INFINITY;
  const samples = new Float64Array(Math.min(MAX_SAMPLES, Number.isFinite(budget) ? budget : MAX_SAMPLES));
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = options.durationMs === undefined ? Number.POSITIVE_INFINITY : started + options.durationMs;
  let launched = 0;
  let completed = 0;
  let errors = 0;
  let last = started;
  return new Promise((resolve) => {
    const finish = () => {
      const cpu = process.cpuUsage(cpuBefore);
      const elapsedMs = last - started;
      resolve({
        completed,
        errors,
        elapsedMs,
        callsPerSecond: (completed / elapsedMs) * 1000,
        latency: summarize(samples.subarray(0, Math.min(completed, samples.length))),
        driverCpuUs: (cpu.user + cpu.system) / Math.max(1, completed),
      });
    };
    const launch = () => {
      launched += 1;
      const sent = performance.now();
      link.call(tool, ++sequence, (ok) => {
        last = performance.now();
        if (completed < samples.length) samples[completed] = last - sent;
        completed += 1;
        if (!ok) errors += 1;
        if (launched < budget && last < deadline) launch();
        else if (completed === launched) finish();
      });
    };
    for (let i = 0; i < inFlight && i < budget; i++) launch();
  });
}

/** Starts a link of the given kind; `url` is the subject's (MCP) or ignored (the driver listens). */
export async function startLink(
  kind: DriverKind,
  options: { url?: string; validate?: boolean; clients?: number; frames?: FrameKind } = {},
): Promise<{ link: Link; url: string | undefined }> {
  if (kind === 'protocol') {
    const link = new ProtocolLink(options.validate === true, options.clients, options.frames);
    return { link, url: await link.url };
  }
  if (kind === 'socketio') {
    const link = new SocketIoLink();
    return { link, url: await link.url };
  }
  if (options.url === undefined) throw new Error('the mcp driver needs the subject url');
  return { link: new McpLink(options.url), url: undefined };
}

/** The driver as a child process, commanded over IPC by the orchestrator. */
function main(): void {
  process.on('disconnect', () => process.exit(0));
  let link: Link | undefined;
  let held: Promise<{ completed: number; errors: number }> | undefined;
  serve(async (request) => {
    switch (request.cmd) {
      case 'start': {
        const started = await startLink(request.kind as DriverKind, {
          url: request.url as string | undefined,
          validate: request.validate === true,
          clients: request.clients === undefined ? 1 : Number(request.clients),
          frames: request.frames === 'plain' ? 'plain' : 'stub',
        });
        link = started.link;
        return { url: started.url };
      }
      case 'wait-client':
        await link!.ready;
        return { helloBytes: link instanceof ProtocolLink ? link.helloBytes : 0 };
      case 'last-result':
        return { text: link instanceof ProtocolLink ? link.lastResult : '' };
      case 'run': {
        const result = await runLoad(link!, request.options as LoadOptions);
        return { result, faults: link!.faults.splice(0, 20) };
      }
      case 'hold': {
        const count = Number(request.count);
        held = runLoad(link!, { tool: 'hold', inFlight: count, calls: count });
        return {};
      }
      case 'collect': {
        const result = await held!;
        return { result, faults: link!.faults.splice(0, 20) };
      }
      case 'exit':
        setTimeout(() => process.exit(0), 20);
        await link?.close();
        return {};
      default:
        throw new Error(`unknown command ${request.cmd}`);
    }
  });
  process.send?.({ id: 0, ready: true });
}

if (process.send !== undefined && process.argv.includes('--driver')) main();
