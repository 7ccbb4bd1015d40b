import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitepress';
import { deadLinks, slugify } from './links';

const root = fileURLToPath(new URL('../../', import.meta.url));

export default defineConfig({
  title: 'toolwire',
  description: 'Run your tools in your own process for a hosted model service, over one WebSocket.',
  // A link to a page that does not exist fails the build (VitePress's own check); buildEnd checks the anchors.
  ignoreDeadLinks: false,
  cleanUrls: true,
  markdown: { anchor: { slugify } },
  buildEnd() {
    const dead = deadLinks(root);
    if (dead.length > 0) throw new Error(`dead links:\n${dead.join('\n')}`);
  },
  themeConfig: {
    outline: [2, 3],
    search: { provider: 'local' },
    nav: [
      { text: 'Guide', link: '/guide/getting-started' },
      { text: 'Reference', link: '/reference/client-options' },
      { text: 'Protocol', link: '/protocol/' },
      { text: 'Reliability', link: '/reliability/' },
    ],
    sidebar: [
      {
        text: 'Guide',
        items: [
          { text: 'Getting started', link: '/guide/getting-started' },
          { text: 'Tools and schemas', link: '/guide/tools' },
          { text: 'What is announced and validated', link: '/guide/validation' },
          { text: 'What the model reads', link: '/guide/model-output' },
          { text: 'Secrets', link: '/guide/secrets' },
          { text: 'The client', link: '/guide/client' },
          { text: 'Approvals', link: '/guide/approvals' },
          { text: 'Allowlists and policies', link: '/guide/policies' },
          { text: 'Long-running calls', link: '/guide/long-running' },
          { text: 'Agents and nested runs', link: '/guide/agents' },
          { text: 'Durability', link: '/guide/durability' },
          { text: 'Several workers', link: '/guide/workers' },
          { text: 'Deploys', link: '/guide/deploys' },
          { text: 'Browsers', link: '/guide/browsers' },
          { text: 'Testing your tools', link: '/guide/testing' },
          { text: 'Coming from other SDKs', link: '/guide/other-sdks' },
          { text: 'Tools written for other SDKs', link: '/guide/tool-shapes' },
        ],
      },
      {
        text: 'Integrations',
        items: [
          { text: 'MCP', link: '/integrations/mcp' },
          { text: 'AI SDK', link: '/integrations/ai-sdk' },
          { text: 'OpenTelemetry', link: '/integrations/opentelemetry' },
          { text: 'A real model behind the stub', link: '/integrations/openai-compatible' },
        ],
      },
      {
        text: 'Reference',
        items: [
          { text: 'Client options', link: '/reference/client-options' },
          { text: 'Tool options', link: '/reference/tool-options' },
          { text: 'ctx', link: '/reference/ctx' },
          { text: 'Events', link: '/reference/events' },
          { text: 'Errors', link: '/reference/errors' },
          { text: 'Errors of the connection', link: '/reference/errors-connection' },
          { text: 'Errors of a call', link: '/reference/errors-calls' },
          { text: 'Errors of runs', link: '/reference/errors-runs' },
          { text: 'Errors loading code', link: '/reference/errors-loading' },
          { text: 'Defaults', link: '/reference/defaults' },
        ],
      },
      {
        text: 'Protocol',
        items: [
          { text: 'Overview', link: '/protocol/' },
          { text: 'Connecting and the heartbeat', link: '/protocol/lifecycle' },
          { text: 'Sessions and delivery', link: '/protocol/sessions' },
          { text: 'Calls a session no longer holds', link: '/protocol/calls-no-longer-held' },
          { text: 'Frames', link: '/protocol/frames' },
          { text: 'Frames the client sends', link: '/protocol/frames-client' },
          { text: 'Frames the service sends', link: '/protocol/frames-service' },
          { text: 'Tool calls', link: '/protocol/tool-calls' },
          { text: 'Which client gets a call', link: '/protocol/routing' },
          { text: 'Deadlines and cancellation', link: '/protocol/deadlines' },
          { text: 'What a call carries', link: '/protocol/call-context' },
          { text: 'Approvals', link: '/protocol/approvals' },
          { text: 'Richer approvals', link: '/protocol/decisions' },
          { text: 'Runs', link: '/protocol/runs' },
          { text: 'Run events', link: '/protocol/run-events' },
          { text: 'Call updates and long calls', link: '/protocol/updates' },
          { text: 'Long calls: the lease', link: '/protocol/lease' },
          { text: 'Questions', link: '/protocol/questions' },
          { text: 'Durable steps', link: '/protocol/steps' },
          { text: 'Trace context', link: '/protocol/trace-context' },
          { text: 'Fleets: waits and hand-back', link: '/protocol/fleets' },
          { text: 'Builds', link: '/protocol/builds' },
          { text: 'Rotating API keys', link: '/protocol/keys' },
          { text: 'Fleet-wide limits', link: '/protocol/fleet-limits' },
          { text: 'Refused frames and codes', link: '/protocol/errors' },
          { text: 'Limits and defaults', link: '/protocol/limits' },
          { text: 'HTTP API', link: '/protocol/http-api' },
          { text: 'The agent UI', link: '/protocol/agent-ui' },
          { text: 'The stand-in service', link: '/protocol/stub' },
          { text: 'Its script and agents files', link: '/protocol/stub-files' },
        ],
      },
      {
        text: 'Reliability',
        items: [
          { text: 'Overview', link: '/reliability/' },
          { text: 'Delivery', link: '/reliability/delivery' },
          { text: 'The connection', link: '/reliability/connection' },
          { text: 'Bounded memory', link: '/reliability/memory' },
          { text: 'Bounds', link: '/reliability/bounds' },
        ],
      },
    ],
  },
});
