/**
 * The tools of an agent about to run, added to the client's registry.
 *
 * @module
 */
import type { ToolRegistry } from '../call/registry';
import { ToolDefinitionError } from '../errors';
import type { Agent } from './agent';

/**
 * Adds to `registry` the tools of `agent` it does not run yet. Returns whether any was added (they must then be
 * announced), or a `ToolDefinitionError` `duplicate_tool` when the agent has a different tool under a name the
 * registry already runs.
 */
// biome-ignore lint/suspicious/noExplicitAny: any agent, whatever its output type.
export function addAgentTools(registry: ToolRegistry, agent: Agent<any>): boolean | ToolDefinitionError {
  for (const item of agent.tools) {
    const registered = registry.get(item.name);
    if (registered !== undefined && registered !== item) {
      return new ToolDefinitionError(
        'duplicate_tool',
        `agent "${agent.name}" has a tool "${item.name}", but this client already runs a different tool with that name`,
      );
    }
  }
  const missing = agent.tools.filter((item) => !registry.has(item.name));
  for (const item of missing) registry.add(item);
  return missing.length > 0;
}
