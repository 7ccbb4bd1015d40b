/**
 * The browser build's src/client/runs.ts (swapped in by browser-build.ts): the same `Runs`, whose real code
 * is loaded by a dynamic `import()` when the page starts its first run (`client.run()`, or a tool calling an
 * agent), so that a page that only answers tool calls never downloads it. Until then there is no run to
 * report on: frames about runs are not this client's, and there is nothing to cancel or fail. A run waiting for
 * the code rejects at once when its `signal` aborts (`AbortError`) or the client closes (`ConnectionError`), and
 * with `RunError` `load_failed` when the code cannot be loaded (the next run tries again).
 *
 * @module
 */
import { lazy } from '../browser/lazy';
import { AbortError, type ConnectionError, RunError } from '../errors';
import type { AgentDefinition, ClientFrame, FrameOf, ServiceFrame } from '../wire/protocol';
import type * as Real from './runs';

export type { RunEvent, RunResult, StartRunOptions } from './runs';

const real = lazy('the runs code (client.run())', () => import('./runs'), RunError);

/** See src/client/runs.ts: the real class, made once its module has loaded. */
export class Runs {
  readonly #args: ConstructorParameters<typeof Real.Runs>;
  #runs: Real.Runs | undefined;
  #closed: ConnectionError | undefined;
  /** Aborted with the error that closed the client: ends the waits for the code. */
  readonly #closing = new AbortController();

  constructor(...args: ConstructorParameters<typeof Real.Runs>) {
    this.#args = args;
  }

  contextOf(runId: string): { found: boolean; context: unknown } {
    return this.#runs?.contextOf(runId) ?? { found: false, context: undefined };
  }

  start(agent: AgentDefinition, input: string, options: Real.StartRunOptions): Promise<Real.RunResult> {
    if (this.#runs !== undefined) return this.#runs.start(agent, input, options);
    const { signal } = options;
    const aborted = (reason: unknown) =>
      new AbortError('aborted', 'the run was aborted before it started', { cause: reason });
    const closed = { signal: this.#closing.signal, error: (error: unknown) => error };
    return real.load({ signal, error: aborted }, closed).then((module) => {
      this.#runs ??= new module.Runs(...this.#args);
      if (this.#closed !== undefined) this.#runs.failAll(this.#closed);
      return this.#closed === undefined
        ? this.#runs.start(agent, input, options)
        : Promise.reject(this.#closed);
    });
  }

  reconnected(resumed = true): void {
    this.#runs?.reconnected(resumed);
  }

  handle(frame: ServiceFrame): boolean {
    return this.#runs?.handle(frame) ?? false;
  }

  unsendable(frame: FrameOf<ClientFrame, 'run_start'>, error: ConnectionError): void {
    this.#runs?.unsendable(frame, error);
  }

  cancelAll(reason: string): void {
    this.#runs?.cancelAll(reason);
  }

  failAll(error: ConnectionError): void {
    this.#closed = error;
    this.#closing.abort(error);
    this.#runs?.failAll(error);
  }
}
