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
): Promise<{ answer: string; traced: string[]; statuses: string[]; answered: number[] }>;
