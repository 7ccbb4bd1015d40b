/**
 * `toolwire/ai-sdk`: toolwire tools inside a local AI SDK loop (`generateText`, `streamText`, `ToolLoopAgent`),
 * e.g. in tests or offline, with the same validation and the same texts as when the hosted agent calls them.
 * Needs `ai` 6 (an optional peer dependency of toolwire).
 *
 * @packageDocumentation
 */
export { type AiSdkTool, type ToAiSdkToolsOptions, toAiSdkTools } from './to-ai-sdk-tools';
export { ToolResultError } from './tool-result-error';
