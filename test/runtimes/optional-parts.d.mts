// Types of ./optional-parts.mjs (plain JavaScript, so that Bun, Deno and a page run the same file).
import type * as Toolwire from '../../src/index';

export declare const SCENARIO_TOOLS: readonly string[];
export declare const SCENARIO_ANSWER: string;
export declare const SCENARIO_TRACE: readonly string[];
export declare function scenarioScript(runs?: number): unknown[];
export declare function runScenario(
  toolwire: typeof Toolwire,
  url: string,
  apiKey: string,
  /** More options of the `Client` (its `WebSocket` on a runtime with none). */
  options?: Partial<Toolwire.ClientOptions>,
): Promise<{ answer: string; traced: string[]; statuses: string[]; answered: number[] }>;
