/**
 * Events a stub server emits (`server.events`), for tests, dashboards and the CLI. Listeners run synchronously;
 * one that throws is a bug in the listener and propagates to the code that emitted.
 *
 * @module
 */
import type { RunEventKind, RunTranscript } from './transcript';

/** Event map of `server.events` (eventemitter3). */
export interface StubEvents {
  /** A client said `hello` and got `welcome`. */
  session_open: (info: { sessionId: string; resumed: boolean; tools: string[] }) => void;
  /**
   * A session's socket closed; the session stays resumable for `sessionGraceMs`, unless its client closed with
   * 1000 (`client.close()`): then `session_expired` follows at once.
   */
  session_detached: (info: { sessionId: string; code: number; reason: string }) => void;
  /** A detached session's grace period ended, or its client closed with 1000: its calls go to other clients. */
  session_expired: (info: { sessionId: string }) => void;
  /**
   * The model's request for a turn failed and is sent again (`attempt`: the one starting, from 2; `status`: the
   * HTTP status of the one that failed, when it had one).
   */
  model_retry: (info: { runId: string; turn: number; attempt: number; status?: number }) => void;
  /** A run started. */
  run_started: (info: { runId: string; agent: string; depth: number; parentRunId?: string }) => void;
  /** Something happened in a run (the same events a `run_event` frame carries). */
  run_event: (info: { runId: string; kind: RunEventKind; data: unknown }) => void;
  /** A run ended; the transcript is a copy. */
  run_finished: (transcript: RunTranscript) => void;
  /** A connection sent something the stub refused (answered with an `error` frame or a close code). */
  protocol_error: (info: { sessionId?: string; code: string | number; message: string }) => void;
}
