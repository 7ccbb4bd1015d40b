/** A tool whose parameters are a plain JSON Schema (typed with `as const`). Run: npx tsx examples/json-schema.ts */
import { Agent, tool } from 'toolwire';
import { answerWithLastOutput, runExample } from './run-example';

const search = tool({
  name: 'search_docs',
  description: 'Search the documentation.',
  parameters: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 2 },
      limit: { type: 'integer', minimum: 1, maximum: 5, default: 3 },
    },
    required: ['query'],
    additionalProperties: false,
  } as const,
  execute: ({ query, limit = 3 }) =>
    ['Getting started', 'Tools', 'Approvals', 'Widgets', 'Protocol']
      .filter((title) => title.toLowerCase().includes(query.toLowerCase()) || query === '*')
      .slice(0, limit),
});

await runExample({
  agent: new Agent({ name: 'Docs', instructions: 'Find pages.', tools: [search] }),
  input: 'Where are approvals explained?',
  script: [{ toolCalls: [{ name: 'search_docs', arguments: { query: 'approv' } }] }, answerWithLastOutput],
});
