/**
 * `invokeTool()`: one call, from the model's raw arguments to the exact text the model reads, with no network:
 * what tool authors call to unit-test their tools (the client starts its calls through `startCall`,
 * src/call/pipeline.ts, with options of its own). This file holds its options' checks, `invokeTool` itself, and
 * `approvalNeeded()`, which asks whether a call would need approval without running the tool.
 *
 * A tool failure is a result, never an exception: `invokeTool` resolves for anything the model or the tool
 * did. It rejects only for a usage error (see {@link invokeTool}).
 *
 * @module
 */
import { OptionsError } from '../errors';
import {
  aBoolean,
  aDuration,
  aFunction,
  anAbortSignal,
  anArrayOf,
  anInteger,
  anything,
  aRecord,
  aString,
  checkOptions,
  type OptionsOwner,
  type OptionsSpec,
} from '../tool/check-options';
import { type NamedToolObject, toTool } from '../tool/shapes';
import { dryRunOf, type Tool, toolInternals } from '../tool/tool';
import { partsFor, preloadParts } from './parts';
import { startCall } from './pipeline';
import { sharedAbort } from './signal';
import type { CallOptions, InvokeOptions, ToolCallResult } from './types';

/** What `invokeTool()` accepts: one rule per option of {@link InvokeOptions}. */
const INVOKE_OPTIONS: OptionsSpec<InvokeOptions> = {
  rules: {
    callId: aString(),
    runId: aString(),
    depth: anInteger({ min: 0 }),
    context: anything,
    signal: anAbortSignal,
    approved: aBoolean,
    agentName: aString(),
    policies: anArrayOf(aFunction, 'an array of functions'),
    approve: aFunction,
    timeoutMs: aDuration(1),
    // Room for the truncation note (up to 55 bytes) and some of the text: a smaller cap would cut the note itself.
    maxOutputBytes: {
      ...anInteger({ min: 64 }),
      expected: 'an integer of at least 64 bytes (the truncation note alone takes up to 55)',
    },
    onWidgetInvalid: aFunction,
    onProgress: aFunction,
    onPreliminary: aFunction,
    onQuestion: aFunction,
    onEmit: aFunction,
    sessionId: aString(),
    tenantId: aString(),
    userId: aString(),
    agentRevision: aString(),
    steps: aRecord,
    onStep: aFunction,
    logger: aRecord,
  },
  /** Names from neighbouring APIs, and what they are called here. */
  aliases: {
    experimental_context: 'context',
    onApproval: 'approve',
    abortSignal: 'signal',
    maxOutput: 'maxOutputBytes',
    toolCallId: 'callId',
    abort: 'signal',
    onWidgetError: 'onWidgetInvalid',
    completedSteps: 'steps',
    policy: 'policies',
    toolPolicies: 'policies',
    timeout: 'timeoutMs',
    askQuestion: 'onQuestion',
    emit: 'onEmit',
  },
};

const INVOKE_OWNER: OptionsOwner = { name: 'invokeTool()', error: OptionsError };

/**
 * Checks options of {@link invokeTool} (or of a function that takes the same, named by `owner` in messages).
 * @throws OptionsError `invalid_options`, `unknown_option` or `invalid_option`.
 */
export function checkInvokeOptions(options: unknown, owner?: string): asserts options is InvokeOptions {
  checkOptions(
    options,
    INVOKE_OPTIONS,
    owner === undefined ? INVOKE_OWNER : { ...INVOKE_OWNER, name: owner },
  );
}

/**
 * Runs one call of `tool` with the model's raw arguments and resolves with what the model reads.
 *
 * Steps: decode the arguments (`''`, `null` and absent mean `{}`; a JSON string is parsed, double-encoded
 * once unwrapped) → validate → `allowedAgentNames` (`agentName`) → `policies` → approval (`needsApproval`,
 * `approved`, `approve`; edited arguments validated again, then the allowlist and policies again) → `execute` → `outputSchema`
 * → widget split → `toModelOutput` → text (lone surrogates become U+FFFD) → `maxOutputBytes`.
 *
 * Time: `timeoutMs` bounds the tool's own work, all of it from one budget: validation, the `needsApproval`
 * predicate, `execute`, `outputSchema` and `toModelOutput` (the wait for `approve` is not counted: a human may
 * take minutes). Past it, `ctx.signal` aborts with a `TimeoutError` and the status is `timeout`, whichever
 * phase was running. `errorFunction` then gets at most `timeoutMs`, and never more than 5,000 ms
 * (`ERROR_FUNCTION_TIMEOUT_MS`, also its bound when there is no `timeoutMs`) before the default text is used.
 * `signal` ends the call as `cancelled` in every phase, `approve` and `errorFunction` included. The
 * model-facing texts are listed in src/tool/model-text.ts.
 *
 * @returns a {@link ToolCallResult}; never rejects for anything the model or the tool did.
 * `source`: any single tool a client accepts, e.g. an object with a `name` (see src/tool/shapes.ts).
 *
 * @throws (as a rejection) only for a usage error, before anything runs: ToolDefinitionError `not_a_tool` when
 *   `source` is of no accepted shape, or what `tool()` throws for an object it refuses; OptionsError `invalid_options` when `options` is not an object,
 *   `unknown_option` for a key {@link InvokeOptions} does not have (e.g. `timeout` for `timeoutMs`: a misspelt
 *   limit would otherwise be silently ignored), `invalid_option` for an option of the wrong kind or out of
 *   range (`callId: 42`, `timeoutMs: 0`, `signal` not an `AbortSignal`, …).
 * @example
 * ```ts
 * const echo = tool({ name: 'echo', description: 'Echoes.', execute: () => 'hi' });
 * const result = await invokeTool(echo, '{}'); // { status: 'ok', output: 'hi', value: 'hi', durationMs: 0 }
 * ```
 */
export async function invokeTool<C = unknown, P = unknown>(
  source: Tool<unknown, unknown, C> | NamedToolObject<P, C>,
  rawArguments: unknown,
  options: InvokeOptions<C> = {},
): Promise<ToolCallResult> {
  const tool = toTool(source, 'invokeTool(): the tool');
  checkInvokeOptions(options);
  // The optional call code the tool and the options need (./parts.ts) starts loading now; the call waits for it
  // where it needs it, under its `signal` and `timeoutMs` as any other wait (a load that fails ends it `error`).
  preloadParts(partsFor(toolInternals(tool), options as CallOptions));
  // Many calls may share one signal: they listen to it through one listener (`sharedAbort`, ./signal.ts).
  const { signal } = options;
  const callOptions: CallOptions =
    signal === undefined
      ? (options as CallOptions)
      : { ...(options as CallOptions), signal: sharedAbort(signal) };
  return new Promise((resolve) =>
    startCall(tool as Tool, rawArguments, callOptions, { result: resolve, started: performance.now() }),
  );
}

/*
 * `approvalNeeded()`: whether a call would need approval, asked without running the tool (for an adapter whose
 * host asks a human itself, e.g. the AI SDK's `needsApproval(input, options)`).
 */
const DRY_RUN = Symbol('dry run');

/** Options of {@link approvalNeeded}: those of `invokeTool` that the checks before `execute` read. */
export interface ApprovalNeededOptions<C = unknown> {
  /** `ctx.callId` of the check. @default a fresh id */
  callId?: string | undefined;
  /** `ctx.context` of the check. @default undefined */
  context?: C | undefined;
  /** Ends the check (then the answer is `undefined`). @default none */
  signal?: AbortSignal | undefined;
}

/**
 * Whether the tool's `needsApproval` (`true`, `approvalRequired(…)` or a predicate, run as `invokeTool` runs it:
 * on the validated input, under the tool's `timeoutMs`) asks for approval of a call with `input`. `execute`
 * never runs.
 *
 * @returns `true` or `false`; `undefined` when the check could not decide (the input is invalid, the predicate
 *   threw, timed out or was cancelled, the tool is not a `tool()` result): the call itself then reports why.
 */
export async function approvalNeeded<C = unknown>(
  // biome-ignore lint/suspicious/noExplicitAny: a tool of any input and output type.
  tool: Tool<any, any, C>,
  input: unknown,
  options: ApprovalNeededOptions<C> = {},
): Promise<boolean | undefined> {
  if (toolInternals(tool) === undefined) return undefined;
  let asked = false;
  const result = await invokeTool(dryRunOf(tool as Tool, DRY_RUN), input, {
    ...options,
    approve: () => {
      asked = true;
      return false;
    },
  } as never);
  if (asked) return true;
  return result.status === 'ok' ? false : undefined;
}
