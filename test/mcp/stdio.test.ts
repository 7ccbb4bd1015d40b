/** importMcpTools against an MCP server in a child process, over stdio (test/fixtures/mcp/stdio-server.ts). */
import { invokeTool } from 'toolwire';
import { importMcpTools } from 'toolwire/mcp';
import { describe, expect, it } from 'vitest';
import { PATIENT, stdioClient } from './helpers';

describe('importMcpTools over stdio', () => {
  it('imports, validates, calls, reports errors and cancels across the process boundary', async () => {
    const mcp = await stdioClient();
    const tools = new Map((await importMcpTools(mcp, { prefix: 'wx_' })).map((t) => [t.name, t]));
    expect([...tools.keys()]).toEqual([
      'wx_weather_get',
      'wx_disk_write',
      'wx_chart',
      'wx_wait',
      'wx_wait_status',
    ]);

    expect(await invokeTool(tools.get('wx_weather_get')!, '{"city":"Lima"}')).toMatchObject({
      status: 'ok',
      output: 'Sunny in Lima, 20°C',
    });
    expect(await invokeTool(tools.get('wx_weather_get')!, '{"city":7}')).toMatchObject({
      status: 'invalid_arguments',
      output:
        'Invalid arguments for wx_weather_get: city: expected a string of at least 2 characters, received 7',
    });
    expect(await invokeTool(tools.get('wx_disk_write')!, { path: '/x' })).toMatchObject({
      status: 'error',
      output: 'Error running wx_disk_write: cannot write /x: the disk is full',
    });

    const status = async () => (await invokeTool(tools.get('wx_wait_status')!, {})).output;
    const controller = new AbortController();
    const waiting = invokeTool(tools.get('wx_wait')!, {}, { signal: controller.signal });
    await expect.poll(status, PATIENT).toBe('{"started":1,"cancelled":0}');
    controller.abort();
    expect((await waiting).status).toBe('cancelled');
    await expect.poll(status, PATIENT).toBe('{"started":1,"cancelled":1}');
  });
});
