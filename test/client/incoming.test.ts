import { describe, expect, it } from 'vitest';
import { tool } from '../../src/index';
import { recordingLogger } from '../fault/gateway';
import {
  nextTask,
  queuedBehindOne,
  recording,
  recordsCalls,
  statuses,
  waitsForAbort,
} from './call-runner-harness';

describe('Incoming, in a call runner', () => {
  it('refuses a re-delivery of any of the last 10,000 finished and acked calls, and forgets those 20,000 back', async () => {
    const echo = recordsCalls('echo');
    const { calls, call } = recording([echo.tool]);
    for (let i = 0; i < 20_001; i++) {
      call(`c${i}`, 'echo');
      await nextTask();
      calls.ack(`c${i}`);
    }
    expect(echo.ran).toHaveLength(20_001);
    expect(calls.unacked).toBe(0);
    call('c10001', 'echo'); // among the last 10,000: ignored
    call('c20000', 'echo');
    call('c10000', 'echo'); // 10,001 back: still remembered (ids are forgotten 10,000 at a time)
    call('c9999', 'echo'); // in the generation forgotten whole: runs again
    call('c0', 'echo');
    await nextTask();
    expect(echo.ran.slice(20_001)).toEqual(['c9999', 'c0']);
  });

  it('forgets none of the first finished calls while its table of ids grows', async () => {
    const echo = recordsCalls('echo');
    const { calls, call } = recording([echo.tool]);
    for (let i = 0; i < 200; i++) {
      call(`c${i}`, 'echo');
      await nextTask();
      calls.ack(`c${i}`);
    }
    for (let i = 0; i < 200; i++) call(`c${i}`, 'echo');
    await nextTask();
    expect(echo.ran).toHaveLength(200);
  });

  it('aborts ctx.signal of a running call on cancel, with the cancel reason', async () => {
    const reasons: unknown[] = [];
    const { calls, call, sent } = recording([waitsForAbort('wait', (_id, reason) => reasons.push(reason))]);
    call('w1', 'wait');
    await nextTask();
    calls.cancel('w1', 'user pressed stop');
    await nextTask();
    expect(reasons).toEqual([
      expect.objectContaining({
        name: 'AbortError',
        message: 'cancelled by the service (user pressed stop)',
        cause: 'user pressed stop',
      }),
    ]);
    expect(reasons[0]).toBeInstanceOf(DOMException);
    expect(sent).toEqual([expect.objectContaining({ callId: 'w1', status: 'cancelled' })]);
  });

  it('ends a call waiting for its question at a not_dispatched cancel, without a result: it runs again if sent again', async () => {
    const seen: string[] = [];
    const asker = tool({
      name: 'asker',
      description: 'Asks the service, then goes on whatever the outcome.',
      execute: async (_input, ctx) => {
        ctx.signal.addEventListener('abort', () => {
          const reason = ctx.signal.reason as DOMException & { cause: unknown };
          seen.push(`${reason.name}: ${reason.message} (cause ${String(reason.cause)})`);
        });
        try {
          await ctx.askQuestion('Which warehouse?');
        } catch (error) {
          seen.push(String(error));
        }
        return 'went on';
      },
    });
    const { calls, call, sent } = recording([asker]);
    calls.welcomed({ features: ['questions'], heartbeatIntervalMs: 60_000 });
    call('a1', 'asker');
    await nextTask();
    expect(sent.map((frame) => frame.type)).toEqual(['question']);
    expect(calls.waiting).toBe(1);
    calls.handle({ type: 'cancel', callId: 'a1', reason: 'not_dispatched' });
    await nextTask();
    expect(seen).toEqual([
      'AbortError: cancelled by the service (not_dispatched): the call had already ended there, or gone to another worker (cause not_dispatched)',
      'QuestionError: the call was cancelled',
    ]);
    expect(calls.waiting).toBe(0);
    // The service does not want its answer: nothing is sent, and the call is not remembered as finished.
    expect(statuses(sent.filter((frame) => frame.type === 'tool_result'))).toEqual([]);
    call('a1', 'asker');
    await nextTask();
    expect(sent.map((frame) => frame.type)).toEqual(['question', 'question_cancel', 'question']);
  });

  it('resolves a drain waiting for the calls once the last one held is told not_dispatched', async () => {
    const { calls, call } = recording([waitsForAbort('wait')]);
    call('w1', 'wait');
    await nextTask();
    let drained = false;
    void calls.idle().then(() => {
      drained = true;
    });
    calls.handle({ type: 'cancel', callId: 'w1', reason: 'not_dispatched' });
    await nextTask();
    expect(drained).toBe(true);
  });

  it('answers busy when a call told not_dispatched comes again while its tool still runs, and runs it once that returned', async () => {
    const starts: number[] = [];
    let letGo!: () => void;
    const stubborn = tool({
      name: 'stubborn',
      description: 'Runs to its end whatever its signal says.',
      execute: async () => {
        starts.push(starts.length + 1);
        if (starts.length === 1) await new Promise<void>((resolve) => (letGo = resolve));
        return `run ${starts.length}`;
      },
    });
    const { calls, call, sent } = recording([stubborn]);
    calls.welcomed({ heartbeatIntervalMs: 60_000 });
    call('s1', 'stubborn');
    await nextTask();
    calls.handle({ type: 'cancel', callId: 's1', reason: 'not_dispatched' });
    await nextTask();
    // Sent again (the only worker left, say) while its first run still runs: busy, not a second run at once.
    call('s1', 'stubborn');
    await nextTask();
    expect(starts).toEqual([1]);
    expect(sent.filter((frame) => frame.type === 'tool_result')).toEqual([
      expect.objectContaining({ callId: 's1', status: 'error', retryable: true }),
    ]);
    letGo();
    await nextTask();
    call('s1', 'stubborn');
    await nextTask();
    expect(starts).toEqual([1, 2]);
    expect(statuses(sent.filter((frame) => frame.type === 'tool_result'))).toEqual(['s1:error', 's1:ok']);
  });

  it('answers busy when a call told not_dispatched comes again while its tool, which waited for an answer, still runs', async () => {
    const runs: string[] = [];
    const questions: AbortSignal[] = [];
    let letGo!: () => void;
    const asker = tool({
      name: 'asker',
      description: 'Asks, and goes on for a while whatever the outcome.',
      execute: async (_input, ctx) => {
        runs.push(`start ${runs.length + 1}`);
        try {
          return `answer ${await ctx.askQuestion('Which warehouse?')}`;
        } catch (error) {
          if (runs.length === 1) await new Promise<void>((resolve) => (letGo = resolve));
          return String(error);
        }
      },
    });
    const { calls, call, sent } = recording([asker], {
      onQuestion: (request) => {
        questions.push(request.signal as AbortSignal);
        return runs.length === 1 ? new Promise<string>(() => {}) : 'Lyon';
      },
    });
    calls.welcomed({ heartbeatIntervalMs: 60_000 });
    call('a1', 'asker');
    await nextTask();
    expect(calls.waiting).toBe(1);
    calls.handle({ type: 'cancel', callId: 'a1', reason: 'not_dispatched' });
    await nextTask();
    // The person answering is told the question is moot; the tool goes on after it.
    expect(questions.map((signal) => signal.aborted)).toEqual([true]);
    call('a1', 'asker');
    await nextTask();
    expect(runs).toEqual(['start 1']);
    expect(sent).toEqual([expect.objectContaining({ callId: 'a1', status: 'error', retryable: true })]);
    letGo();
    await nextTask();
    call('a1', 'asker');
    await nextTask();
    expect(runs).toEqual(['start 1', 'start 2']);
    expect(sent.at(-1)).toMatchObject({ callId: 'a1', status: 'ok', output: 'answer Lyon' });
  });

  it('runs anew a call told not_dispatched while, answered, it waited in line for a slot (its question ends cancelled)', async () => {
    const runs: string[] = [];
    const asker = tool({
      name: 'asker',
      description: 'Asks, then answers with the answer.',
      execute: async (_input, ctx) => {
        runs.push(`start ${runs.length + 1}`);
        return `answer ${await ctx.askQuestion('Which warehouse?')}`;
      },
    });
    const { calls, call, sent } = recording([asker, waitsForAbort('stuck')], {
      maxConcurrency: 1,
      onQuestion: () => Promise.resolve('Lyon'),
    });
    calls.welcomed({ heartbeatIntervalMs: 60_000 });
    call('a1', 'asker');
    call('s1', 'stuck');
    await nextTask();
    expect(calls.queued).toBe(1);
    calls.handle({ type: 'cancel', callId: 'a1', reason: 'not_dispatched' });
    await nextTask();
    call('a1', 'asker');
    calls.cancel('s1', 'done with it');
    await nextTask();
    expect(runs).toEqual(['start 1', 'start 2']);
    expect(statuses(sent.filter((frame) => frame.type === 'tool_result'))).toEqual(['s1:cancelled', 'a1:ok']);
  });

  it('runs anew a call told not_dispatched while it waited for its key, when it comes again', async () => {
    const ran: string[] = [];
    let letGo!: () => void;
    const keyed = tool({
      name: 'keyed',
      description: 'One call at a time.',
      concurrency: { limit: 1, key: () => 'same' },
      execute: async (_input, ctx) => {
        ran.push(ctx.callId);
        if (ran.length === 1) await new Promise<void>((resolve) => (letGo = resolve));
        return 'done';
      },
    });
    const { calls, call, sent } = recording([keyed]);
    calls.welcomed({ heartbeatIntervalMs: 60_000 });
    call('k1', 'keyed');
    call('k2', 'keyed');
    await nextTask();
    expect(ran).toEqual(['k1']);
    calls.handle({ type: 'cancel', callId: 'k2', reason: 'not_dispatched' });
    await nextTask();
    letGo();
    await nextTask();
    // Its tool never began: nothing of it runs, so it is not answered busy.
    call('k2', 'keyed');
    await nextTask();
    expect(ran).toEqual(['k1', 'k2']);
    expect(statuses(sent.filter((frame) => frame.type === 'tool_result'))).toEqual(['k1:ok', 'k2:ok']);
  });

  it('aborts ctx.signal of every running call when the client closes, with an AbortError', async () => {
    const reasons: unknown[] = [];
    const { calls, call, sent } = recording([waitsForAbort('wait', (_id, reason) => reasons.push(reason))]);
    call('w1', 'wait');
    await nextTask();
    calls.abortAll('client closing');
    await nextTask();
    expect(reasons).toEqual([
      expect.objectContaining({
        name: 'AbortError',
        message: 'cancelled (client closing)',
        cause: 'client closing',
      }),
    ]);
    expect(reasons[0]).toBeInstanceOf(DOMException);
    expect(sent).toEqual([expect.objectContaining({ callId: 'w1', status: 'cancelled' })]);
  });
});

describe('Incoming, in a call runner: calls still running when the client closes', () => {
  it("hands back a running call of a tool that may run again, and cancels an 'external' tool's", async () => {
    const reasons: unknown[] = [];
    const stopsOn = (name: string, sideEffect: 'idempotent' | 'none' | 'external') =>
      tool({
        name,
        description: 'Runs until aborted.',
        sideEffect,
        execute: (_input, ctx) =>
          new Promise<string>((resolve) =>
            ctx.signal.addEventListener('abort', () => {
              reasons.push(ctx.signal.reason);
              resolve('stopped');
            }),
          ),
      });
    const { calls, call, sent } = recording([
      stopsOn('put', 'idempotent'),
      stopsOn('read', 'none'),
      stopsOn('charge', 'external'),
    ]);
    call('p1', 'put');
    call('r1', 'read');
    call('c1', 'charge');
    await nextTask();
    // As close() does: it stops taking calls, then its drain runs out of time.
    calls.stopAccepting();
    calls.abortAll('client closing', true);
    await nextTask();
    expect(sent).toEqual([
      {
        type: 'tool_result',
        callId: 'p1',
        status: 'error',
        output: 'Error running put: the client is shutting down; try again later',
        retryable: true,
      },
      {
        type: 'tool_result',
        callId: 'r1',
        status: 'error',
        output: 'Error running read: the client is shutting down; try again later',
        retryable: true,
      },
      expect.objectContaining({ callId: 'c1', status: 'cancelled' }),
    ]);
    expect(reasons.map((reason) => (reason as Error).message)).toEqual([
      'the client is shutting down',
      'the client is shutting down',
      'cancelled (client closing)',
    ]);
  });
});

describe('Incoming, in a call runner: the connection ends for good', () => {
  it('cancels a running call of an idempotent tool: only close() hands calls back', async () => {
    const put = tool({
      name: 'put',
      description: 'Runs until aborted.',
      sideEffect: 'idempotent',
      execute: (_input, ctx) =>
        new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped'))),
    });
    const { calls, call, sent } = recording([put]);
    call('p1', 'put');
    await nextTask();
    calls.abortAll('client closed');
    await nextTask();
    expect(sent).toEqual([expect.objectContaining({ callId: 'p1', status: 'cancelled' })]);
  });
});

describe('Incoming, in a call runner: cancelling queued calls', () => {
  it('aborts every call on abortAll (close) without running the queued ones', async () => {
    const { calls, call, ran, sent } = queuedBehindOne();
    call('run', 'stuck');
    for (const id of ['q1', 'q2', 'q3']) call(id, 'charge');
    await nextTask();
    calls.abortAll('closing');
    await nextTask();
    expect(ran).toEqual([]);
    expect(statuses(sent).sort()).toEqual(['q1:cancelled', 'q2:cancelled', 'q3:cancelled', 'run:cancelled']);
  });
});

describe('Incoming', () => {
  it('answers a re-delivered call from the outbox, without running it again', () => {
    const echo = recordsCalls('echo');
    const { call, sent } = recording([echo.tool]);
    call('c1', 'echo');
    call('c1', 'echo');
    expect(echo.ran).toEqual(['c1']);
    expect(statuses(sent)).toEqual(['c1:ok', 'c1:ok']);
  });

  it('joins a re-delivery to the execution in flight instead of starting the call again', async () => {
    const started: string[] = [];
    const { calls, call, sent } = recording([waitsForAbort('wait')], {
      events: {
        toolCall: (info) => started.push(info.callId),
        toolResult() {},
        approvalRequested() {},
        widgetInvalid() {},
      },
    });
    call('w1', 'wait');
    call('w1', 'wait');
    expect(started).toEqual(['w1']);
    expect(calls.running).toBe(1);
    calls.cancel('w1', 'done with it');
    await nextTask();
    expect(statuses(sent)).toEqual(['w1:cancelled']);
  });

  it('refuses a call past maxConcurrency + maxQueue, unacked results included, with a retryable busy result', () => {
    const { calls, call, sent } = recording([waitsForAbort('wait'), recordsCalls('echo').tool], {
      maxConcurrency: 1,
      maxQueue: 1,
    });
    call('e1', 'echo'); // finished; its result waits for an ack and holds one place
    call('w1', 'wait'); // runs: both places taken
    call('w2', 'wait');
    expect(sent.at(-1)).toEqual({
      type: 'tool_result',
      callId: 'w2',
      status: 'error',
      output: 'Error running wait: the client is busy; try again later',
      retryable: true,
    });
    calls.ack('e1');
    call('w3', 'wait'); // a place again: it waits in line
    expect(calls.queued).toBe(1);
    calls.abortAll('test over');
  });

  it('refuses every call once it stops accepting, with a retryable shutting-down result', () => {
    const echo = recordsCalls('echo');
    const { calls, call, sent } = recording([echo.tool]);
    calls.stopAccepting();
    call('c1', 'echo');
    expect(echo.ran).toEqual([]);
    expect(sent).toEqual([
      {
        type: 'tool_result',
        callId: 'c1',
        status: 'error',
        output: 'Error running echo: the client is shutting down; try again later',
        retryable: true,
      },
    ]);
  });

  it('hands back the calls waiting for their first slot when it stops; the running one goes on', async () => {
    const hang = waitsForAbort('hang');
    const { calls, call, sent } = recording([hang], { maxConcurrency: 1, maxQueue: 10 });
    call('running', 'hang');
    call('q1', 'hang');
    call('q2', 'hang');
    calls.stopAccepting();
    const shuttingDown = (callId: string) => ({
      type: 'tool_result',
      callId,
      status: 'error',
      output: 'Error running hang: the client is shutting down; try again later',
      retryable: true,
    });
    expect(sent).toEqual([shuttingDown('q1'), shuttingDown('q2')]);
    expect([calls.running, calls.queued]).toEqual([1, 0]);
    // Handed back, not finished here: the service may offer them again, and they are answered as new calls.
    call('q1', 'hang');
    expect(sent.at(-1)).toEqual(shuttingDown('q1'));
    calls.abortAll('test over');
    await nextTask();
    expect(statuses(sent).slice(-1)).toEqual(['running:cancelled']);
  });

  it('hands back a call waiting for the service’s approval decision when it stops; the drain does not wait for it', async () => {
    const guarded = tool({
      name: 'guarded',
      description: 'Needs a human.',
      needsApproval: () => true,
      execute: () => 'ran',
    });
    const { calls, call, sent } = recording([guarded]);
    call('c1', 'guarded');
    await nextTask();
    expect(sent).toEqual([{ type: 'approval_request', callId: 'c1' }]);
    calls.stopAccepting();
    await nextTask();
    const shuttingDown = {
      type: 'tool_result',
      callId: 'c1',
      status: 'error',
      output: 'Error running guarded: the client is shutting down; try again later',
      retryable: true,
    };
    expect(sent.slice(1)).toEqual([shuttingDown]);
    expect([calls.running, calls.queued, calls.unacked]).toEqual([0, 0, 0]);
    let idle = false;
    void calls.idle().then(() => {
      idle = true;
    });
    await nextTask();
    expect(idle).toBe(true);
    // The decision crossing the hand-back reaches this client: answered as a new call, nothing run.
    call('c1', 'guarded', { approved: true });
    await nextTask();
    expect(sent.slice(2)).toEqual([shuttingDown]);
  });

  it('hands back a call waiting for a local approver’s later decision; the decision runs nothing', async () => {
    let decide: (approved: boolean) => void = () => {};
    const ran: string[] = [];
    const guarded = tool({
      name: 'guarded',
      description: 'Needs a human.',
      needsApproval: true,
      execute: (_input, ctx) => {
        ran.push(ctx.callId);
        return 'ran';
      },
    });
    const { calls, call, sent } = recording([guarded], {
      onApproval: () =>
        new Promise<boolean>((resolve) => {
          decide = resolve;
        }),
    });
    call('c1', 'guarded');
    await nextTask();
    calls.stopAccepting();
    await nextTask();
    expect(statuses(sent)).toEqual(['c1:error']);
    expect(sent[0]).toMatchObject({ retryable: true });
    decide(true);
    await nextTask();
    expect(ran).toEqual([]);
    expect(sent).toHaveLength(1);
  });

  /** A runner whose `guarded` tool needs approval, and whose calls wait for their context until `contextReady()`. */
  function guardedWaitingForContext() {
    let ready: (value: unknown) => void = () => {};
    const guarded = tool({
      name: 'guarded',
      description: 'Needs a human.',
      needsApproval: () => true,
      execute: () => 'ran',
    });
    const runner = recording([guarded], {
      contextFor: () =>
        new Promise((resolve) => {
          ready = resolve;
        }),
    });
    return { ...runner, contextReady: (value: unknown) => ready(value) };
  }

  it('hands back a call that comes to its approval while the client stops, without asking', async () => {
    const { calls, call, sent, contextReady } = guardedWaitingForContext();
    call('c1', 'guarded');
    await nextTask();
    calls.stopAccepting();
    contextReady({});
    await nextTask();
    expect(sent).toEqual([
      {
        type: 'tool_result',
        callId: 'c1',
        status: 'error',
        output: 'Error running guarded: the client is shutting down; try again later',
        retryable: true,
      },
    ]);
  });

  it('resolves a drain whose last call, come to its approval while the client stops, is handed back', async () => {
    const { calls, call, sent, contextReady } = guardedWaitingForContext();
    call('c1', 'guarded');
    await nextTask();
    // As close() does: it stops taking calls, then waits for the calls it holds.
    calls.stopAccepting();
    let drained = false;
    void calls.idle().then(() => {
      drained = true;
    });
    contextReady({});
    await nextTask();
    expect(statuses(sent)).toEqual(['c1:error']);
    expect([calls.running, calls.queued, calls.unacked]).toEqual([0, 0, 0]);
    expect(drained).toBe(true);
  });

  it('keeps a call that began and waits for a person’s answer, and says the drain waits for it', async () => {
    const logger = recordingLogger();
    const asker = tool({
      name: 'asker',
      description: 'Asks.',
      execute: async (_input, ctx) => String(await ctx.askQuestion('Which warehouse?')),
    });
    const { calls, call, sent } = recording([asker], {
      logger,
      onQuestion: () => new Promise<string>(() => {}),
    });
    call('c1', 'asker');
    await nextTask();
    calls.stopAccepting();
    await nextTask();
    expect(sent).toEqual([]);
    expect(logger.lines.filter((line) => line.level === 'warn')).toEqual([
      {
        level: 'warn',
        object: { calls: 1 },
        message:
          "1 call(s) that began wait for a person's answer (ctx.askQuestion) or a nested run: the drain waits for them within its timeoutMs, then cancels them (or hands back those of tools with sideEffect 'none' or 'idempotent')",
      },
    ]);
    calls.abortAll('test over');
    await nextTask();
    expect(statuses(sent)).toEqual(['c1:cancelled']);
  });

  it('ignores a cancel for a call it does not hold', () => {
    const { calls, sent } = recording([recordsCalls('echo').tool]);
    calls.cancel('nobody', 'service');
    expect(sent).toEqual([]);
  });
});

describe('Incoming: a re-delivered call id with different arguments', () => {
  const secretArgs = { card: '4111-1111-1111-1111' };

  it('joins the call as first received, logs a warn naming the call id (never the arguments), runs once', async () => {
    const logger = recordingLogger();
    const ran: unknown[] = [];
    const release: Array<() => void> = [];
    const charge = tool({
      name: 'charge',
      description: 'Charges.',
      parameters: { type: 'object', properties: { amount: { type: 'number' } } } as const,
      execute: (input) =>
        new Promise<string>((resolve) => {
          ran.push(input);
          release.push(() => resolve('charged'));
        }),
    });
    const { calls, sent } = recording([charge], { logger });
    const frame = { type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'charge' } as const;
    calls.receive({ ...frame, arguments: { amount: 1 } });
    calls.receive({ ...frame, arguments: { amount: 1 } }); // the same: nothing to say
    calls.receive({ ...frame, arguments: { amount: 999, ...secretArgs } }); // in flight: joins
    await nextTask();
    release[0]?.();
    await nextTask();
    calls.receive({ ...frame, arguments: { amount: 5 } }); // answered from the outbox
    expect(ran).toEqual([{ amount: 1 }]);
    expect(statuses(sent)).toEqual(['c1:ok', 'c1:ok']);
    const warns = logger.lines.filter((line) => line.level === 'warn');
    expect(warns).toEqual([
      {
        level: 'warn',
        object: { callId: 'c1', toolName: 'charge' },
        message:
          'a re-delivered tool_call has arguments different from the call of that id; it joins the call as first received, and its arguments are ignored',
      },
      expect.objectContaining({ object: { callId: 'c1', toolName: 'charge' } }),
    ]);
    expect(JSON.stringify(logger.lines)).not.toContain('4111');
  });
});
