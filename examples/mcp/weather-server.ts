/**
 * A stand-in for an MCP server your team already runs, written with the MCP SDK and zod alone (no toolwire).
 * `examples/from-mcp.ts` starts it as a child process and talks to it over stdio.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const CITIES: Record<string, { tempC: number; sky: string }> = {
  Oslo: { tempC: 4, sky: 'light snow' },
  Lisbon: { tempC: 19, sky: 'clear' },
};
/** A 1×1 PNG: the "radar image" this server returns beside its text. */
const RADAR_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

const server = new McpServer({ name: 'weather', version: '1.0.0' });

server.registerTool(
  'weather.current',
  {
    description: 'Current weather in a city.',
    inputSchema: { city: z.string().min(2).describe('City name, e.g. Oslo') },
  },
  async ({ city }) => {
    const found = CITIES[city];
    if (!found) return { content: [{ type: 'text', text: `no station in ${city}` }], isError: true };
    return { content: [{ type: 'text', text: `${found.tempC}°C, ${found.sky}` }] };
  },
);

server.registerTool(
  'weather.radar',
  { description: 'Radar picture of a city, with a one-line summary.', inputSchema: { city: z.string() } },
  async ({ city }) => ({
    content: [
      { type: 'text', text: `Radar for ${city}: showers moving east.` },
      { type: 'image', data: RADAR_PNG, mimeType: 'image/png' },
    ],
  }),
);

await server.connect(new StdioServerTransport());
