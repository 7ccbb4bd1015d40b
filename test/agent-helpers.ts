export { agentDefinition as agentDefinitionForTests } from '../src/agent';
export { Agent, tool } from '../src/index';
