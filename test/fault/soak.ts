/**
 * The soak scenario: several clients, each behind its own fault-injecting proxy that drops or cuts its
 * connection every few hundred milliseconds, serve thousands of tool calls with random durations, approvals
 * (held by the service and decided over HTTP, asked by a client predicate, or decided locally), tool errors,
 * run cancellations, long calls that outlive the service's per-call deadline while reporting progress, and
 * questions (answered over HTTP, or by the first client's `onQuestion`), for a bounded time. Then everything is checked from the stub's transcripts and the
 * tools' own records:
 *
 * - every call got exactly one result, and it is the one its tool produced (or, for a call of a cancelled run,
 *   `cancelled`); no result was lost (no call ended `timeout`), none changed on the way;
 * - no call id executed twice, in one process or across them;
 * - every run ended, every outbox emptied;
 * - every long call that ended `ok` has its last progress recorded, and no progress was recorded twice; no
 *   question was left open.
 *
 * Used by soak.test.ts (short, in `npm test`) and `npm run test:soak` (long).
 */
import { z } from 'zod';
import {
  type Model,
  type ModelToolCall,
  type StubServerOptions,
  silentLogger,
  startStubServer,
} from '../../server-stub/index';
import { Agent, Client, QuestionError, type ToolContext, tool } from '../../src/index';
import { seededRandom, startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

export interface SoakOptions {
  /** How long new runs are started, in milliseconds. */
  durationMs: number;
  /** Seed of every random choice (drops, durations, cancellations, decisions). */
  seed: number;
  /** Clients, each behind its own proxy. @default 3 */
  clients?: number;
  /** Runs in progress at once. @default 12 */
  concurrentRuns?: number;
  /** A fault every `[min, max]` milliseconds on each proxy. @default [150, 500] */
  faultEveryMs?: readonly [number, number];
  /** Share of faults that cut mid-frame rather than drop cleanly. @default 0.3 */
  cutRatio?: number;
  /** Ceiling of the clients' reconnect backoff, in milliseconds. @default 500 */
  maxReconnectDelayMs?: number;
  /** How long runs may take to end after `durationMs` before they count as lost. @default 20_000 */
  settleMs?: number;
}

/** What happened, and what went wrong (every `…Lost`, `duplicates`, `mismatched` list must be empty). */
export interface SoakReport {
  seed: number;
  wallMs: number;
  runs: { started: number; completed: number; cancelled: number; byClient: number };
  calls: {
    total: number;
    ok: number;
    error: number;
    rejected: number;
    cancelled: number;
    executions: number;
    /** Long calls (past the per-call deadline) that ended `ok`. */
    long: number;
    /** Questions asked (and recorded by the service). */
    questions: number;
  };
  connections: { accepted: number; dropped: number; cutMidFrame: number };
  reconnects: { count: number; medianMs: number; p95Ms: number; maxMs: number };
  /** Calls whose result never reached the service (they ended `timeout`), or runs that never ended. */
  resultsLost: string[];
  /** Call ids executed more than once (in one process, or in two). */
  duplicates: string[];
  /** Calls whose recorded result is not the one their tool produced. */
  mismatched: string[];
  /** Results still waiting for an ack at the end, per client. */
  unackedAtEnd: number[];
  peakRssMiB: number;
}

type ToolKind = 'work' | 'guarded' | 'predicate' | 'flaky' | 'long' | 'asking';
const TOOL_KINDS: readonly ToolKind[] = [
  'work',
  'work',
  'work',
  'work',
  'work',
  'work',
  'guarded',
  'predicate',
  'flaky',
  'long',
  'asking',
];
/** Steps of a long call, each reported as progress (`total`). */
const LONG_STEPS = 10;
/** A long call takes this long at least, in milliseconds: longer than the soak's per-call deadline. */
export const LONG_CALL_MS = 3_500;

/** The answer to call `n`'s question: declined for every fifth n, else twice n. */
const answerOf = (n: number): { answer: string } | { declined: true; reason: string } =>
  n % 5 === 0 ? { declined: true, reason: 'soak' } : { answer: String(n * 2) };
const params = z.object({ n: z.number().int(), ms: z.number().int().min(0) });

/** Whether a human (or the local policy) approves call `n`: three in four. */
const approves = (n: number) => n % 4 !== 1;
const REJECTION_REASON = 'policy';

/** What the model reads for call `n` of `kind` when it ran to the end (the tools are deterministic). */
export function expectedResult(kind: ToolKind, n: number): { status: string; output: string } {
  if ((kind === 'guarded' || (kind === 'predicate' && n % 2 === 0)) && !approves(n)) {
    return {
      status: 'rejected',
      output: `${kind} was not run: the user declined. Reason: ${REJECTION_REASON}`,
    };
  }
  if (kind === 'flaky' && n % 3 === 0) return { status: 'error', output: `Error running flaky: flaky ${n}` };
  if (kind === 'asking') {
    const reply = answerOf(n);
    return { status: 'ok', output: `asking:${n}:${'answer' in reply ? reply.answer : 'declined'}` };
  }
  return { status: 'ok', output: `${kind}:${n}` };
}

/** Sleeps `ms`, or until `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** One client process's tools, with their own records: executions and produced outputs by call id. */
function toolsFor() {
  const executions = new Map<string, number>();
  const produced = new Map<string, string>();
  const body = (kind: ToolKind) => async (input: { n: number; ms: number }, ctx: ToolContext) => {
    executions.set(ctx.callId, (executions.get(ctx.callId) ?? 0) + 1);
    if (kind === 'long') {
      // Longer than the deadline, kept alive by its lease; progress at every step, the last one included.
      for (let step = 1; step <= LONG_STEPS && !ctx.signal.aborted; step++) {
        await sleep(input.ms / LONG_STEPS, ctx.signal);
        ctx.progress({ progress: step, total: LONG_STEPS });
      }
    } else if (kind === 'asking') {
      let answer = 'declined';
      try {
        answer = await ctx.askQuestion(`What is twice ${input.n}?`);
      } catch (error) {
        // Declined: the call goes on. Cancelled (the run was): it ends cancelled anyway.
        if (!(error instanceof QuestionError) || error.code !== 'declined') throw error;
      }
      const output = `asking:${input.n}:${answer}`;
      if (!ctx.signal.aborted) produced.set(ctx.callId, output);
      return output;
    } else await sleep(input.ms, ctx.signal);
    if (kind === 'flaky' && input.n % 3 === 0) {
      produced.set(ctx.callId, `Error running flaky: flaky ${input.n}`);
      throw new Error(`flaky ${input.n}`);
    }
    const output = `${kind}:${input.n}`;
    if (!ctx.signal.aborted) produced.set(ctx.callId, output);
    return output;
  };
  const tools = [
    tool({ name: 'work', description: 'Works a while.', parameters: params, execute: body('work') }),
    tool({
      name: 'guarded',
      description: 'Needs a human every time.',
      parameters: params,
      needsApproval: true,
      execute: body('guarded'),
    }),
    tool({
      name: 'predicate',
      description: 'Needs a human for even n.',
      parameters: params,
      needsApproval: (_ctx, input) => input.n % 2 === 0,
      execute: body('predicate'),
    }),
    tool({
      name: 'flaky',
      description: 'Throws for n divisible by 3.',
      parameters: params,
      execute: body('flaky'),
    }),
    tool({ name: 'long', description: 'Outlives the deadline.', parameters: params, execute: body('long') }),
    tool({ name: 'asking', description: 'Asks the user.', parameters: params, execute: body('asking') }),
  ];
  return { tools, executions, produced };
}

/**
 * The model: a first turn of 4–12 calls of random tools, sometimes a second turn, then a final text. Every call
 * gets a fresh `n`, so its expected result is known.
 */
function soakModel(random: () => number): Model {
  let next = 0;
  const batch = (): ModelToolCall[] =>
    Array.from({ length: 4 + Math.floor(random() * 9) }, () => {
      const n = next++;
      const kind = TOOL_KINDS[Math.floor(random() * TOOL_KINDS.length)]!;
      const ms = kind === 'long' ? LONG_CALL_MS + Math.floor(random() * 1_500) : Math.floor(random() * 30);
      return { name: kind, arguments: JSON.stringify({ n, ms }) };
    });
  return {
    async nextTurn({ turn }) {
      if (turn === 0 || (turn === 1 && random() < 0.3)) return { toolCalls: batch() };
      return { text: 'done' };
    },
  };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/** Starts a stub with `stubOptions` (and the scenario's model), runs the scenario, closes everything. */
export async function runSoak(
  options: SoakOptions,
  stubOptions: StubServerOptions = {},
): Promise<SoakReport> {
  const started = Date.now();
  const random = seededRandom(options.seed);
  const clientCount = options.clients ?? 3;
  const apiKey = 'soak-key';
  const server = await startStubServer({
    logger: silentLogger,
    ...stubOptions,
    apiKeys: [apiKey],
    model: soakModel(random),
  });
  const closers: Array<() => Promise<void>> = [() => server.close()];
  let peakRss = process.memoryUsage().rss;
  const rssTimer = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 50);
  try {
    const reconnectMs: number[] = [];
    const proxies: TcpProxy[] = [];
    const workers: Array<{ client: Client; records: ReturnType<typeof toolsFor> }> = [];
    for (let index = 0; index < clientCount; index++) {
      const proxy = await startTcpProxy({ targetPort: server.port });
      proxies.push(proxy);
      closers.push(() => proxy.close());
      const records = toolsFor();
      const client = new Client({
        url: proxy.url,
        apiKey,
        tools: records.tools,
        // A connection shorter than 5 s does not reset the backoff (STABLE_CONNECTION_MS), so on this link,
        // dropped every few hundred ms, the default ceiling (10 s) would keep clients offline for seconds at a
        // time: calls would wait, not be lost, but the soak would run few of them.
        reconnect: { maxDelayMs: options.maxReconnectDelayMs ?? 500 },
        // The first client decides approvals and answers questions itself; the others leave them to the service's
        // human.
        ...(index === 0
          ? {
              onApproval: (request: { input: unknown }) => {
                const { n } = request.input as { n: number };
                return approves(n) ? true : { approved: false, reason: REJECTION_REASON };
              },
              onQuestion: async (request: { question: string }) =>
                answerOf(Number(/twice (\d+)/.exec(request.question)?.[1])),
            }
          : {}),
      });
      closers.push(() => client.close({ drain: false }));
      let droppedAt: number | undefined;
      client.on('disconnected', () => {
        droppedAt = Date.now();
      });
      client.on('connected', () => {
        if (droppedAt !== undefined) reconnectMs.push(Date.now() - droppedAt);
        droppedAt = undefined;
      });
      await client.connect();
      workers.push({ client, records });
    }

    // The service's human: decides every held call over HTTP, after a short random wait.
    const decisions: Array<Promise<unknown>> = [];
    const onEvent = (event: { runId: string; kind: string; data: unknown }) => {
      if (event.kind === 'question_asked') {
        const asked = event.data as { callId: string; questionId: string; question: string; runId?: string };
        if (asked.runId !== undefined && asked.runId !== event.runId) return;
        const n = Number(/twice (\d+)/.exec(asked.question)?.[1]);
        const wait = Math.floor(random() * 20);
        decisions.push(
          new Promise((resolve) => setTimeout(resolve, wait)).then(() =>
            fetch(
              `${server.httpUrl}/v1/runs/${event.runId}/calls/${asked.callId}/questions/${asked.questionId}`,
              {
                method: 'POST',
                headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
                body: JSON.stringify(answerOf(n)),
              },
            ).then((response) => response.status),
          ),
        );
        return;
      }
      if (event.kind !== 'approval_requested') return;
      const data = event.data as { callId: string; arguments: unknown; runId?: string };
      if (data.runId !== undefined && data.runId !== event.runId) return; // the same request, seen on an ancestor
      const { n } = JSON.parse(String(data.arguments)) as { n: number };
      const body = approves(n) ? { approved: true } : { approved: false, reason: REJECTION_REASON };
      const wait = Math.floor(random() * 20);
      decisions.push(
        new Promise((resolve) => setTimeout(resolve, wait)).then(() =>
          fetch(`${server.httpUrl}/v1/runs/${event.runId}/approvals/${data.callId}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          }).then((response) => response.status),
        ),
      );
    };
    server.events.on('run_event', onEvent);
    closers.push(async () => {
      server.events.off('run_event', onEvent);
    });

    const stops = proxies.map((proxy, index) =>
      proxy.chaos({
        seed: options.seed * 31 + index,
        everyMs: options.faultEveryMs ?? [150, 500],
        cutRatio: options.cutRatio ?? 0.3,
      }),
    );

    // Runs: most started over the API (calls spread over the clients), some by a client with client.run().
    let byClient = 0;
    let clientRunsPending = 0;
    const agentDefinition = {
      name: 'soak',
      instructions: 'Call tools.',
      tools: ['work', 'guarded', 'predicate', 'flaky', 'long', 'asking'],
    };
    const startOne = async (): Promise<void> => {
      if (random() < 0.2) {
        const worker = workers[Math.floor(random() * workers.length)]!;
        const agent = new Agent({ name: 'soak', instructions: 'Call tools.', tools: worker.records.tools });
        byClient += 1;
        const controller = new AbortController();
        if (random() < 0.1) setTimeout(() => controller.abort(), Math.floor(random() * 100));
        clientRunsPending += 1;
        try {
          await worker.client.run(agent, 'go', { signal: controller.signal });
        } catch (error) {
          // Cancelled by us: the run ends `cancelled` on the service ("the run was cancelled").
          if ((error as { name?: string }).name !== 'AbortError') throw error;
        } finally {
          clientRunsPending -= 1;
        }
        return;
      }
      const runId = server.runs.start(agentDefinition, 'go');
      if (random() < 0.1) setTimeout(() => server.runs.cancel(runId, 'soak'), Math.floor(random() * 100));
      await server.runs.waitFor(runId);
    };
    const hung: string[] = [];
    const lanes = Promise.all(
      Array.from({ length: options.concurrentRuns ?? 12 }, async () => {
        while (Date.now() - started < options.durationMs) await startOne();
      }),
    );
    // A run that never ends is a finding, not a hang of the suite: give up waiting after `settleMs`.
    let giveUp: ReturnType<typeof setTimeout> | undefined;
    const settled = await Promise.race([
      lanes.then(() => true),
      new Promise<false>((resolve) => {
        giveUp = setTimeout(() => resolve(false), options.durationMs + (options.settleMs ?? 20_000));
      }),
    ]);
    clearTimeout(giveUp);
    if (!settled) {
      lanes.catch(() => {}); // the clients close below; their pending runs reject
      hung.push(
        `runs still pending ${options.settleMs ?? 20_000} ms after the last one started, ${clientRunsPending} of them client.run()`,
      );
    }
    for (const stop of stops) stop();
    await Promise.all(decisions);

    // Every run has ended (the lanes waited for each); now every outbox must empty.
    const drainedBy = Date.now() + 10_000;
    while (workers.some((worker) => worker.client.stats.unacked > 0) && Date.now() < drainedBy) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }

    // Check every call of every run against the tools' own records.
    const report: SoakReport = {
      seed: options.seed,
      wallMs: 0,
      runs: { started: 0, completed: 0, cancelled: 0, byClient },
      calls: { total: 0, ok: 0, error: 0, rejected: 0, cancelled: 0, executions: 0, long: 0, questions: 0 },
      connections: {
        accepted: proxies.reduce((sum, proxy) => sum + proxy.stats.accepted, 0),
        dropped: proxies.reduce((sum, proxy) => sum + proxy.stats.dropped, 0),
        cutMidFrame: proxies.reduce((sum, proxy) => sum + proxy.stats.cut, 0),
      },
      reconnects: { count: 0, medianMs: 0, p95Ms: 0, maxMs: 0 },
      resultsLost: [...hung],
      duplicates: [],
      mismatched: [],
      unackedAtEnd: workers.map((worker) => worker.client.stats.unacked),
      peakRssMiB: 0,
    };
    const executedBy = new Map<string, number>();
    for (const { records } of workers) {
      for (const [callId, count] of records.executions) {
        report.calls.executions += count;
        if (count > 1) report.duplicates.push(`${callId} ran ${count} times in one client`);
        executedBy.set(callId, (executedBy.get(callId) ?? 0) + 1);
      }
    }
    for (const [callId, clients] of executedBy) {
      if (clients > 1) report.duplicates.push(`${callId} ran in ${clients} clients`);
    }
    const producedBy = new Map<string, string>();
    for (const { records } of workers)
      for (const [callId, output] of records.produced) producedBy.set(callId, output);

    // Cancellations the scenario made itself; any other (a session expiring, say) is a failure.
    const ourCancels = new Set(['the run was cancelled', 'the run was cancelled: soak']);
    for (const { runId } of server.runs.list()) {
      report.runs.started += 1;
      const transcript = server.runs.get(runId);
      if (!transcript || transcript.status === 'running') {
        report.resultsLost.push(`run ${runId} never ended`);
        continue;
      }
      const cancelled = transcript.status === 'cancelled';
      if (cancelled) report.runs.cancelled += 1;
      else if (transcript.status === 'completed') report.runs.completed += 1;
      else report.resultsLost.push(`run ${runId} ${transcript.status}: ${transcript.error}`);
      if (cancelled && !ourCancels.has(transcript.error ?? '')) {
        report.resultsLost.push(`run ${runId} was cancelled by the service: ${transcript.error}`);
      }
      // Progress recorded for each call: never the same step twice.
      const steps = new Map<string, number[]>();
      for (const event of transcript.events) {
        if (event.kind !== 'tool_progress') continue;
        const { callId, progress } = event.data as { callId: string; progress: number };
        steps.set(callId, [...(steps.get(callId) ?? []), progress]);
      }
      for (const [callId, recorded] of steps) {
        if (new Set(recorded).size !== recorded.length) {
          report.duplicates.push(`${callId}: progress recorded twice (${recorded.join(', ')})`);
        }
      }
      for (const call of transcript.toolCalls) {
        report.calls.total += 1;
        for (const question of call.questions ?? []) {
          report.calls.questions += 1;
          if (question.status === 'open')
            report.resultsLost.push(`${call.callId}: question ${question.questionId} left open`);
        }
        if (call.toolName === 'long' && call.status === 'ok') {
          report.calls.long += 1;
          if (call.progress?.progress !== LONG_STEPS) {
            report.resultsLost.push(
              `${call.callId} (long) ended ok without its last progress (recorded: ${JSON.stringify(call.progress)})`,
            );
          }
        }
        const status = call.status ?? 'none';
        if (status in report.calls) report.calls[status as 'ok' | 'error' | 'rejected' | 'cancelled'] += 1;
        if (call.state !== 'done') {
          report.resultsLost.push(`${call.callId} (${call.toolName}) ended in state ${call.state}`);
          continue;
        }
        if (status === 'timeout') {
          report.resultsLost.push(`${call.callId} (${call.toolName}) timed out: its result never arrived`);
          continue;
        }
        if (status === 'cancelled' && cancelled) continue;
        const { n } = JSON.parse(String(call.arguments)) as { n: number };
        const expected = expectedResult(call.toolName as ToolKind, n);
        if (status !== expected.status || call.output !== expected.output) {
          report.mismatched.push(
            `${call.callId} ${call.toolName}(${n}): got ${status} ${JSON.stringify(call.output)}, expected ${expected.status} ${JSON.stringify(expected.output)}`,
          );
          continue;
        }
        // What the service recorded is what a tool produced (rejected calls produce nothing: no tool ran).
        if (status !== 'rejected' && producedBy.get(call.callId) !== call.output) {
          report.mismatched.push(
            `${call.callId}: the service has ${JSON.stringify(call.output)}, the tool produced ${JSON.stringify(producedBy.get(call.callId))}`,
          );
        }
        if (status === 'rejected' && executedBy.has(call.callId)) {
          report.duplicates.push(`${call.callId} was rejected but its tool ran`);
        }
      }
    }
    const sorted = [...reconnectMs].sort((a, b) => a - b);
    report.reconnects = {
      count: sorted.length,
      medianMs: percentile(sorted, 0.5),
      p95Ms: percentile(sorted, 0.95),
      maxMs: sorted.at(-1) ?? 0,
    };
    report.peakRssMiB = Math.round(Math.max(peakRss, process.memoryUsage().rss) / 2 ** 20);
    report.wallMs = Date.now() - started;
    return report;
  } finally {
    clearInterval(rssTimer);
    for (const close of closers.reverse()) await close();
  }
}
