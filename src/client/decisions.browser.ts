/**
 * The browser build's src/client/decisions.ts (swapped in by browser-build.ts): `client.decide()` loads the
 * real code (a chunk of its own) the first time a page decides. Until then no decision is pending: an
 * `approval_applied` is taken as the real class takes one it has no request for. A decision waiting for the code
 * rejects at once when the socket drops or the client closes (`ConnectionError` `disconnected`, nothing sent), and
 * with `ApprovalError` `load_failed` when the code cannot be loaded (the next decision tries again).
 *
 * @module
 */
import { lazy } from '../browser/lazy';
import type { ApprovalDecision } from '../call/types';
import { ApprovalError, ConnectionError } from '../errors';
import type { ServiceFrame } from '../wire/protocol';
import type * as Real from './decisions';

const real = lazy('the decisions code (client.decide())', () => import('./decisions'), ApprovalError);

/** See src/client/decisions.ts: the real class, made once its module has loaded. */
export class Decisions {
  readonly #send: ConstructorParameters<typeof Real.Decisions>[0];
  readonly #maxPayloadBytes: ConstructorParameters<typeof Real.Decisions>[1];
  readonly #redactor: ConstructorParameters<typeof Real.Decisions>[2];
  #features: readonly string[] | undefined;
  #decisions: Real.Decisions | undefined;
  /** Aborted when the socket drops or the client closes: ends the waits for the code. */
  #dropped = new AbortController();

  constructor(
    send: ConstructorParameters<typeof Real.Decisions>[0],
    maxPayloadBytes: ConstructorParameters<typeof Real.Decisions>[1],
    redactor?: ConstructorParameters<typeof Real.Decisions>[2],
  ) {
    this.#send = send;
    this.#maxPayloadBytes = maxPayloadBytes;
    this.#redactor = redactor;
  }

  welcomed(features: readonly string[] | undefined): void {
    this.#features = features;
    this.#decisions?.welcomed(features);
  }

  decide(callId: string, given: ApprovalDecision): Promise<void> {
    if (this.#decisions !== undefined) return this.#decisions.decide(callId, given);
    const dropped = {
      signal: this.#dropped.signal,
      error: () =>
        new ConnectionError(
          'disconnected',
          'decide(): the socket dropped while its code loaded; nothing was sent',
        ),
    };
    return real.load(dropped).then((module) => {
      if (this.#decisions === undefined) {
        this.#decisions = new module.Decisions(this.#send, this.#maxPayloadBytes, this.#redactor);
        this.#decisions.welcomed(this.#features);
      }
      return this.#decisions.decide(callId, given);
    });
  }

  handle(frame: ServiceFrame): boolean {
    return this.#decisions?.handle(frame) ?? frame.type === 'approval_applied';
  }

  refused(about: { type?: string; requestId?: string }, message: string): boolean {
    return this.#decisions?.refused(about, message) ?? false;
  }

  disconnected(): void {
    this.#dropped.abort();
    this.#dropped = new AbortController();
    this.#decisions?.disconnected();
  }
}
