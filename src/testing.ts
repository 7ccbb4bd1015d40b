/**
 * `toolwire/testing`: what a test of your tools uses, and nothing a running client needs.
 *
 * - {@link invokeTool}: call one tool in process, without a service (the root exports the same function);
 * - {@link recordRun} and {@link replayTools}: keep what each call of a finished run returned, and replay it with
 *   copies of your tools that never run (a replayed call the recording cannot answer throws {@link ReplayError});
 * - {@link validateWidget}: check a widget as the client does before a result leaves the process.
 *
 * Kept out of the root so that a page's first download carries none of it (the client never imports it).
 *
 * @packageDocumentation
 */
// In Node (and in Bun and Deno through the `node` condition) this is the package's Node entry, so that every optional
// part (zod 3, valibot, JSON Schema, `strict: true`, ...) is registered before this subpath defines a tool, whatever
// the program imported first. Elsewhere it is the core, which registers nothing (a bundler drops it).
import 'toolwire';

export { invokeTool } from './call/invoke';
export type { InvokeOptions } from './call/types';
export { type RecordedCall, ReplayError, type RunRecording, recordRun } from './client/recording';
export { replayTools } from './client/replay';
export { validateWidget, type WidgetValidation } from './tool/widget';
