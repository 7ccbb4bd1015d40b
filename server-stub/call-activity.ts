/**
 * What a call said while it ran (docs/protocol/updates.md): the update counters that keep a re-sent update from
 * counting
 * twice, the latest progress and preliminary result, the lease, and the call's questions.
 *
 * @module
 */

/** The update frame types that carry a per-call `seq`. */
export type UpdateKind = 'progress' | 'preliminary' | 'event';

/** The latest `tool_progress` of a call, as the transcript shows it. */
export interface CallProgress {
  progress: number;
  total?: number;
  message?: string;
  /** ISO 8601. */
  at: string;
}

/** The latest `tool_preliminary` of a call, as the transcript shows it. */
export interface CallPreliminary {
  output: string;
  widget?: unknown;
  /** How many the service received. */
  count: number;
  /** ISO 8601. */
  at: string;
}

/** A question of a call (docs/protocol/questions.md), as the transcript shows it. */
export interface CallQuestion {
  questionId: string;
  /** The dispatch of the call that asked it (docs/protocol/questions.md), when not its first: 2 after one re-dispatch. */
  dispatch?: number;
  question: string;
  choices?: string[];
  schema?: Record<string, unknown>;
  /** ISO 8601. */
  askedAt: string;
  status: 'open' | 'answered' | 'declined' | 'cancelled';
  answer?: unknown;
  reason?: string;
  /** Who closed it: a person over HTTP, the client (`question_cancel`), or the service (the call ended). */
  by?: 'http' | 'client' | 'service';
  /** ISO 8601. */
  answeredAt?: string;
}

/** The updates of one call. */
export class CallActivity {
  /** The session whose counters these are: a call re-dispatched to another session counts again from 1. */
  #sessionId: string | undefined;
  readonly #seqs = new Map<UpdateKind, number>();
  progress: CallProgress | undefined;
  preliminary: CallPreliminary | undefined;
  /**
   * The questions of the call's current dispatch (its stay in one session), by id, in the order asked. A question
   * id is the client's and unique only within that dispatch: a call re-dispatched elsewhere numbers from `q1`
   * again (docs/protocol/questions.md).
   */
  readonly questions = new Map<string, CallQuestion>();
  /** The questions of the call's earlier dispatches, closed, in the order asked. */
  readonly #earlierQuestions: CallQuestion[] = [];
  /** The number of the call's current dispatch: 1 until it leaves its first session. */
  #dispatch = 1;
  /** Epoch milliseconds the call's lease runs out at (docs/protocol/lease.md); 0 when it has none. */
  leaseUntil = 0;
  /**
   * The client said the call waits for its concurrency key's turn (`key_waits`, docs/protocol/fleets.md): it holds
   * no slot there, and is not leased, until the client says it runs.
   */
  waitsForKey = false;
  /**
   * The client said the call waits for its own approver, a person, say (`approval_waits`,
   * docs/protocol/approvals.md): it holds no slot there until the client says it runs. Unlike a call waiting for its
   * key it stays leased, and is never asked back.
   */
  waitsForApprover = false;
  /**
   * The limits of its tool's `fleet` that hold the call on the service's side now (docs/protocol/fleet-limits.md), as the
   * model reads them if its deadline passes there (`concurrency 1`); `undefined` once it is sent, or when none do.
   */
  heldByFleet: string | undefined;
  /**
   * The service asked the session the call waits on to hand it back (`hand_back`, docs/protocol/fleets.md), for this
   * session: until the call leaves, the ask is unanswered. Answered busy, the call goes there if it can; an ask the
   * client ignored (the call had begun) moves nothing, wherever the call goes next.
   */
  handBackTo: string | undefined;
  /**
   * Epoch milliseconds the call was last asked back (`-Infinity`: never): it is not asked again before
   * `handBackAgainMs` has passed since, so that it does not move from worker to worker within a moment.
   */
  handedBackAt = Number.NEGATIVE_INFINITY;
  /** Nested runs this call started (`run_start.parentCallId`) still in progress: the call waits for them. */
  nestedRuns = 0;
  /** `tool_event`s recorded (at most `EVENT_LIMITS.maxPerCall`, whichever session sent them). */
  events = 0;
  /** The side-effect class the tool's definition announced, where the call was last sent (docs/protocol/frames.md). */
  sideEffect: string | undefined;
  /** The tool was announced strict, with the feature `strict` (docs/protocol/call-context.md). */
  strict = false;
  /** The call's completed steps, by key: the first result of each key, kept for a re-dispatch (docs/protocol/steps.md). */
  readonly steps = new Map<string, unknown>();

  /** How many of the call's questions wait for an answer. */
  get openQuestions(): number {
    let open = 0;
    for (const question of this.questions.values()) if (question.status === 'open') open += 1;
    return open;
  }

  /**
   * `true` while the call waits for a person's answer or for a nested run it started: its client holds no slot
   * for it then (it is parked), so the service does not count it against the client's slots.
   */
  get parked(): boolean {
    return this.nestedRuns > 0 || this.openQuestions > 0;
  }

  /** Every question the call asked, in every dispatch, in the order asked (the transcript's list). */
  get allQuestions(): CallQuestion[] {
    return [...this.#earlierQuestions, ...this.questions.values()];
  }

  /** How many questions the call asked in all its dispatches (`QUESTION_LIMITS.maxPerCall` bounds it). */
  get questionCount(): number {
    return this.#earlierQuestions.length + this.questions.size;
  }

  /** The number of the call's current dispatch: 1, then one more each time the call leaves a session. */
  get dispatch(): number {
    return this.#dispatch;
  }

  /**
   * The question an HTTP answer names: with `dispatch`, the one with that id asked in that dispatch; without, the
   * current dispatch's with that id, else the latest earlier one (closed, so the answer is refused).
   */
  question(questionId: string, dispatch?: number): CallQuestion | undefined {
    if (dispatch === undefined || dispatch === this.#dispatch) {
      const current = this.questions.get(questionId);
      if (current !== undefined || dispatch !== undefined) return current;
    }
    for (let index = this.#earlierQuestions.length - 1; index >= 0; index--) {
      const earlier = this.#earlierQuestions[index];
      if (
        earlier?.questionId === questionId &&
        (dispatch === undefined || (earlier.dispatch ?? 1) === dispatch)
      )
        return earlier;
    }
    return undefined;
  }

  /**
   * The call left the session it was dispatched to (its questions are closed by then): a question it asks in its
   * next dispatch is new, whatever its id.
   */
  endDispatch(): void {
    this.#earlierQuestions.push(...this.questions.values());
    this.questions.clear();
    this.#dispatch += 1;
  }

  /**
   * `true` (and the counter moves on) when an update of `kind` numbered `seq` from `sessionId` is new: above the
   * last one of that kind from that session. A session other than the last one starts every count again.
   */
  accept(kind: UpdateKind, sessionId: string, seq: number): boolean {
    if (sessionId !== this.#sessionId) {
      this.#sessionId = sessionId;
      this.#seqs.clear();
    }
    if (seq <= (this.#seqs.get(kind) ?? 0)) return false;
    this.#seqs.set(kind, seq);
    return true;
  }
}
