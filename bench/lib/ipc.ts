/**
 * Request/reply over Node's IPC channel between the orchestrator and its child processes (driver, subjects,
 * micro-benchmarks). Every request carries an `id`; the child answers with the same `id`.
 *
 * @module
 */
import type { ChildProcess } from 'node:child_process';

/** A message from the orchestrator to a child. */
export interface Request {
  id: number;
  cmd: string;
  [key: string]: unknown;
}

/** A child's answer. `error` is set when the handler threw. */
export interface Reply {
  id: number;
  error?: string;
  [key: string]: unknown;
}

/** Parent side: sends requests to one child and resolves with its replies. */
export class Channel {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, { resolve(reply: Reply): void; reject(error: Error): void }>();
  #next = 1;
  #exited: Error | undefined;

  constructor(child: ChildProcess, name: string) {
    this.#child = child;
    child.on('message', (message: Reply) => {
      const pending = this.#pending.get(message.id);
      if (!pending) return;
      this.#pending.delete(message.id);
      if (message.error !== undefined) pending.reject(new Error(`${name}: ${message.error}`));
      else pending.resolve(message);
    });
    child.on('exit', (code, signal) => {
      this.#exited = new Error(`${name} exited (${code ?? signal}) with a request pending`);
      for (const pending of this.#pending.values()) pending.reject(this.#exited);
      this.#pending.clear();
    });
  }

  /** Sends a request; rejects after `timeoutMs` or when the child exits first. */
  request<R extends Reply = Reply>(
    cmd: string,
    fields: Record<string, unknown> = {},
    timeoutMs = 120_000,
  ): Promise<R> {
    if (this.#exited) return Promise.reject(this.#exited);
    const id = this.#next++;
    return new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`request ${cmd} timed out after ${timeoutMs}ms`));
      }, timeoutMs);
      this.#pending.set(id, {
        resolve: (reply) => {
          clearTimeout(timer);
          resolve(reply as R);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.#child.send({ id, cmd, ...fields } satisfies Request);
    });
  }
}

/** Child side: answers each request with what `handler` returns (or the message of what it throws). */
export function serve(
  handler: (request: Request) => Promise<Record<string, unknown>> | Record<string, unknown>,
): void {
  process.on('message', (request: Request) => {
    void (async () => {
      try {
        const reply = await handler(request);
        process.send?.({ ...reply, id: request.id });
      } catch (error) {
        process.send?.({ id: request.id, error: error instanceof Error ? error.message : String(error) });
      }
    })();
  });
}

/** Tells the parent the child is up (`id: 0`, outside any request). */
export function announce(fields: Record<string, unknown>): void {
  process.send?.({ id: 0, ...fields });
}

/** Resolves with the first message a child sends with `id: 0` (its announcement). */
export function announced<R extends Reply = Reply>(
  child: ChildProcess,
  name: string,
  timeoutMs = 30_000,
): Promise<R> {
  return new Promise<R>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`${name} did not start within ${timeoutMs}ms`));
    }, timeoutMs);
    const onMessage = (message: Reply) => {
      if (message.id !== 0) return;
      cleanup();
      if (message.error !== undefined) reject(new Error(`${name}: ${message.error}`));
      else resolve(message as R);
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`${name} exited (${code}) before it started`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}
