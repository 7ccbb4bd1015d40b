/**
 * `ToolRegistry`: the tools of a client by name, and calls by tool name (an unknown name is a result, not an
 * exception).
 *
 * @module
 */
import { ToolDefinitionError } from '../errors';
import type { Redactor } from '../redact';
import { unknownToolText } from '../tool/model-text';
import { toWellFormed, truncateUtf8 } from '../tool/output';
import type { ToolSetOf, ToolSource, ToolSourceOf, ToolsGiven } from '../tool/shapes';
import { isToolLike, renameAdviceFor, toTool, toTools, twoToolsNamed } from '../tool/shapes';
import { type AnyTool, type Tool, toolInternals } from '../tool/tool';
import { cutChars } from '../utf8';
import { MAX_APPROVAL_REASON_CHARS, type ToolDefinition } from '../wire/protocol';
import { checkInvokeOptions } from './invoke';
import { partsFor, preloadParts } from './parts';
import { type CallRun, startCall, startRun } from './pipeline';
import type { CallOptions, InvokeOptions, ToolCallResult } from './types';

/**
 * Tools by name, in the order they were added. Takes tools of every shape a client does (the structural
 * contract of src/tool/shapes.ts): `tool()` results, plain objects, AI SDK tools, records keyed by name.
 *
 * `T` types the tools given to the constructor entry by entry (inferred, as for a client's `tools`: each object's
 * `execute` input is its schema's type); it plays no part once the registry is made.
 *
 * @example
 * ```ts
 * const registry = new ToolRegistry([ping]);
 * const result = await registry.invoke('ping', '{}');
 * ```
 */
export class ToolRegistry<T = ToolsGiven> {
  readonly #tools = new Map<string, AnyTool>();

  /**
   * @param tools - an array or a record keyed by name (a {@link ToolSet}), or any iterable of tools (a `Set`; not
   *   a `Map`, whose items are `[key, value]` pairs: it is refused, naming `Object.fromEntries(map)`).
   * @throws ToolDefinitionError `duplicate_tool` when two different tools share a name (the same tool given twice
   *   is registered once); `not_a_tool` for a value of no accepted shape (named by its index or key); what
   *   `tool()` throws for an object it refuses.
   */
  /** Any iterable of tools other than an array (a `Set`, a generator). */
  constructor(tools: { readonly length?: undefined } & Iterable<ToolSource>);
  /** An array or a record of tools, each entry typed by its own schema. */
  // biome-ignore lint/suspicious/noExplicitAny: a registry's tools run with any context.
  constructor(tools?: ToolSetOf<T, any>);
  constructor(tools: unknown = []) {
    const listed =
      Array.isArray(tools) || isToolLike(tools) || !isIterable(tools) || tools instanceof Map
        ? tools
        : Array.from(tools as Iterable<unknown>);
    for (const item of toTools(listed, 'ToolRegistry')) this.#put(item, 'ToolRegistry');
  }

  /**
   * Adds a tool of any accepted shape (see {@link toTool}).
   *
   * Adding the tool already registered under its name does nothing.
   *
   * @throws ToolDefinitionError `duplicate_tool` when a different tool of that name is registered, `not_a_tool`
   *   for a value of no accepted shape; what `tool()` throws for an object it refuses.
   */
  // biome-ignore lint/suspicious/noExplicitAny: a registry's tools run with any context.
  add<P>(source: ToolSourceOf<P, any>): void {
    this.#put(toTool(source, 'ToolRegistry.add()'), 'ToolRegistry.add()', 'registry.remove');
  }

  /**
   * Registers `tool`, refusing a different one of the same name in the words of `owner` (the call the user made),
   * naming `remover` (that API's way to remove a tool) as the way to replace it.
   */
  #put(tool: AnyTool, owner: string, remover?: string): void {
    const registered = this.#tools.get(tool.name);
    if (registered === tool) return;
    if (registered !== undefined) throw duplicateTool(owner, tool.name, remover, [registered, tool]);
    this.#tools.set(tool.name, tool);
    // What its calls need of the optional call code starts loading now (./parts.ts).
    preloadParts(partsFor(toolInternals(tool)));
  }

  /** Removes a tool by name. @returns `true` when it was registered. */
  remove(name: string): boolean {
    return this.#tools.delete(name);
  }

  /** The tool of that name, if any. */
  get(name: string): AnyTool | undefined {
    return this.#tools.get(name);
  }

  /** `true` when a tool of that name is registered. */
  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /**
   * The registered tools, in the order they were added.
   * @returns a new array each time: changing it changes nothing registered.
   */
  tools(): AnyTool[] {
    return [...this.#tools.values()];
  }

  /** Names of the registered tools, in the order they were added. */
  names(): string[] {
    return [...this.#tools.keys()];
  }

  /**
   * The definitions to announce to the service, in the order the tools were added. With `redactor`, each
   * `approvalReason` is redacted (then cut to {@link MAX_APPROVAL_REASON_CHARS} characters, as its schema allows,
   * should a replacement have made it longer); names, descriptions and parameters are sent as written.
   */
  definitions(redactor?: Redactor): ToolDefinition[] {
    const definitions = [...this.#tools.values()].map((item) => item.definition);
    if (redactor === undefined || redactor.empty) return definitions;
    return definitions.map((definition) => {
      const reason = definition.approvalReason;
      if (reason === undefined) return definition;
      const redacted = redactor.text(reason);
      if (redacted === reason) return definition;
      return { ...definition, approvalReason: cutChars(redacted, MAX_APPROVAL_REASON_CHARS) };
    });
  }

  /**
   * Calls a tool by name (see {@link invokeTool}). An unknown name resolves with status `unknown_tool` and
   * the text `Tool "<name>" not found. Available tools: a, b` (or `No tools are available.`).
   *
   * @throws OptionsError (as a rejection) only for invalid options, as {@link invokeTool} does, whether the tool
   *   exists or not.
   */
  async invoke(
    toolName: string,
    rawArguments: unknown,
    options: InvokeOptions = {},
  ): Promise<ToolCallResult> {
    checkInvokeOptions(options, 'ToolRegistry.invoke()');
    const found = this.#tools.get(toolName);
    if (found === undefined) return unknownTool(this, toolName, options);
    return new Promise((resolve) =>
      startCall(found as Tool, rawArguments, options as CallOptions, {
        result: resolve,
        started: performance.now(),
      }),
    );
  }
}

/**
 * `duplicate_tool` for a tool whose name a different registered tool has, in the words of `owner`: with `remover`
 * (the call that removes a tool there, e.g. `client.removeTool`), the tool is added alone, so the message says how
 * to replace the one registered; without, two tools given together share the name. `both` (the registered tool
 * and the new one) bring the advice of the bridge that named them, if any (`adviseRename`).
 */
export function duplicateTool(
  owner: string,
  name: string,
  remover?: string,
  both: readonly object[] = [],
): ToolDefinitionError {
  if (remover === undefined)
    return new ToolDefinitionError('duplicate_tool', `${owner}: ${twoToolsNamed(name, both)}`);
  const advice = renameAdviceFor(both);
  return new ToolDefinitionError(
    'duplicate_tool',
    `${owner}: a different tool named "${name}" is already registered; ${advice === undefined ? '' : `${advice}, or `}to replace it, call ${remover}("${name}") first${advice === undefined ? ', or give the new tool another name' : ''}`,
  );
}

function isIterable(value: unknown): value is Iterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.iterator in value;
}

function unknownTool(registry: ToolRegistry, toolName: string, options: CallOptions): ToolCallResult {
  const output = toWellFormed(unknownToolText(String(toolName), registry.names()));
  const capped = options.maxOutputBytes === undefined ? output : truncateUtf8(output, options.maxOutputBytes);
  return { status: 'unknown_tool', output: capped, durationMs: 0 };
}

/**
 * {@link ToolRegistry.invoke} for a host's own call (the client's, which is its own options and sink, built by
 * toolwire: no checks): `call` gets the result exactly once, synchronously when every step of the call is
 * synchronous; `context` is `ctx.context`. Never throws.
 */
export function startByName(
  registry: ToolRegistry,
  call: CallRun,
  toolName: string,
  rawArguments: unknown,
  context: unknown,
): void {
  const found = registry.get(toolName);
  if (found !== undefined) startRun(call, found as Tool, rawArguments, context);
  else call.result(unknownTool(registry, toolName, call.options));
}
