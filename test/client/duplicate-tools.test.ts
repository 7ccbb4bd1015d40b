/**
 * `duplicate_tool` is two different tools under one name (docs/reference/errors.md): the same tool given twice is kept once,
 * alike in the five places that take tools (new Client, new Agent, ToolRegistry, toolsOf, client.addTool).
 */
import { describe, expect, it } from 'vitest';
import { Agent, Client, ToolDefinitionError, ToolRegistry, tool, toolsOf } from '../../src/index';
import { FAKE_URL, fakeWebSocket, useFakeService } from './fake-service';

const { service, clients } = useFakeService();

const echo = tool({ name: 'echo', description: 'Echoes.', execute: () => 'echo' });
const otherEcho = tool({ name: 'echo', description: 'Another echo.', execute: () => 'other' });
const ping = tool({ name: 'ping', description: 'Pings.', execute: () => 'pong' });
// An object of options (not a tool() result) is made into one tool, however often it is listed.
const shaped = { name: 'shaped', description: 'A tool given as its options.', execute: () => 'ok' };

function client(tools: unknown) {
  const made = new Client({
    url: FAKE_URL,
    WebSocket: fakeWebSocket(),
    apiKey: 'key-123456',
    tools: tools as never,
  });
  clients.push(made);
  return made;
}

describe('the same tool given twice', () => {
  it('new Client() announces it once', async () => {
    const worker = client([echo, ping, echo, shaped, shaped]);
    const connection = await service.connect(worker);
    const hello = connection.frames.find((frame) => frame.type === 'hello');
    expect(hello?.type === 'hello' && hello.tools.map((definition) => definition.name)).toEqual([
      'echo',
      'ping',
      'shaped',
    ]);
  });

  it('new Agent() keeps it once', () => {
    const agent = new Agent({ name: 'A', instructions: '', tools: [echo, ping, echo] });
    expect(agent.tools).toEqual([echo, ping]);
    const unchanged = [echo, ping];
    expect(new Agent({ name: 'B', instructions: '', tools: unchanged }).tools).toBe(unchanged);
  });

  it('ToolRegistry registers it once, from the list and from add()', () => {
    const registry = new ToolRegistry([echo, echo, shaped, shaped]);
    registry.add(echo);
    registry.add(shaped);
    expect(registry.names()).toEqual(['echo', 'shaped']);
  });

  it('toolsOf() lists it once', () => {
    expect(toolsOf([echo, ping, echo], 'bridge()')).toEqual([echo, ping]);
  });

  it('client.addTool() of a tool it runs does nothing, announcing nothing', async () => {
    const worker = client([echo]);
    const connection = await service.connect(worker);
    worker.addTool(echo);
    worker.addTool(ping);
    await connection.next('tools_update');
    expect(connection.frames.filter((frame) => frame.type === 'tools_update')).toHaveLength(1);
  });
});

describe('two different tools with one name', () => {
  it('are refused everywhere, naming the name', async () => {
    expect(() => client([echo, otherEcho])).toThrowError(
      new ToolDefinitionError(
        'duplicate_tool',
        'new Client(options): two different tools are named "echo"; tools are compared by identity (two tool() calls make two tools, even with the same options): list one tool object, or rename one of them',
      ),
    );
    expect(() => new Agent({ name: 'A', instructions: '', tools: [echo, otherEcho] })).toThrowError(
      new ToolDefinitionError(
        'duplicate_tool',
        'Agent "A": two different tools are named "echo"; tools are compared by identity (two tool() calls make two tools, even with the same options): list one tool object, or rename one of them',
      ),
    );
    expect(() => new ToolRegistry([echo, otherEcho])).toThrowError(
      new ToolDefinitionError(
        'duplicate_tool',
        'ToolRegistry: two different tools are named "echo"; tools are compared by identity (two tool() calls make two tools, even with the same options): list one tool object, or rename one of them',
      ),
    );
    expect(() => toolsOf([echo, otherEcho], 'bridge()')).toThrowError(
      new ToolDefinitionError(
        'duplicate_tool',
        'bridge(): two different tools are named "echo"; tools are compared by identity (two tool() calls make two tools, even with the same options): list one tool object, or rename one of them',
      ),
    );
  });

  it('added alone, are refused naming the call the user made and how to replace the tool', async () => {
    const worker = client([echo]);
    await service.connect(worker);
    expect(() => worker.addTool(otherEcho)).toThrowError(
      new ToolDefinitionError(
        'duplicate_tool',
        'client.addTool(): a different tool named "echo" is already registered; to replace it, call client.removeTool("echo") first, or give the new tool another name',
      ),
    );
    expect(worker.removeTool('echo')).toBe(true);
    worker.addTool(otherEcho);
    const registry = new ToolRegistry([echo]);
    expect(() => registry.add(otherEcho)).toThrowError(
      new ToolDefinitionError(
        'duplicate_tool',
        'ToolRegistry.add(): a different tool named "echo" is already registered; to replace it, call registry.remove("echo") first, or give the new tool another name',
      ),
    );
  });
});
