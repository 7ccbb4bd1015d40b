import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolRegistry } from '../../src/call/registry';
import { ToolDefinitionError } from '../../src/errors';
import { tool } from '../../src/tool/tool';

const make = (name: string) => tool({ name, description: `The ${name} tool.`, execute: () => name });

describe('ToolRegistry', () => {
  it('holds tools by name, in the order they were added', () => {
    const registry = new ToolRegistry([make('b'), make('a')]);
    registry.add(make('c'));
    expect(registry.names()).toEqual(['b', 'a', 'c']);
    expect(registry.has('a')).toBe(true);
    expect(registry.get('a')?.name).toBe('a');
    expect(registry.get('zzz')).toBeUndefined();
    expect(registry.definitions().map((d) => d.name)).toEqual(['b', 'a', 'c']);
  });

  it('removes a tool by name', () => {
    const registry = new ToolRegistry([make('a')]);
    expect(registry.remove('a')).toBe(true);
    expect(registry.remove('a')).toBe(false);
    expect(registry.names()).toEqual([]);
  });

  it('refuses two tools with the same name', () => {
    expect(() => new ToolRegistry([make('a'), make('a')])).toThrow(
      new ToolDefinitionError(
        'duplicate_tool',
        'ToolRegistry: two different tools are named "a"; tools are compared by identity (two tool() calls make two tools, even with the same options): list one tool object, or rename one of them',
      ),
    );
  });

  it('refuses a value of no accepted shape, naming its index or key', () => {
    expect(() => new ToolRegistry([{ name: 'x' } as never])).toThrow(
      new ToolDefinitionError(
        'not_a_tool',
        'ToolRegistry: tools[0] must be a tool (made with tool(), or an object with description and execute), got an object named "x"',
      ),
    );
    expect(() => new ToolRegistry({ x: 42 } as never)).toThrow(
      new ToolDefinitionError(
        'not_a_tool',
        'ToolRegistry: tools.x must be a tool (made with tool(), or an object with description and execute), got 42',
      ),
    );
    expect(() => new ToolRegistry().add({ name: 'x', description: '', execute: () => 1 })).toThrow(
      new ToolDefinitionError(
        'invalid_description',
        'tool "x": description must be a non-empty string, got ""',
      ),
    );
  });

  it('takes every shape a client takes: plain objects, records keyed by name, bare functions, any iterable', async () => {
    const registry = new ToolRegistry({
      made: make('made'),
      plain: { description: 'Plain.', inputSchema: z.object({ n: z.number() }), execute: ({ n }) => n * 2 },
      bare: () => 'bare',
    });
    registry.add({ name: 'added', description: 'Added.', execute: () => 'added' });
    expect(registry.names()).toEqual(['made', 'plain', 'bare', 'added']);
    expect(await registry.invoke('plain', { n: 21 })).toMatchObject({ status: 'ok', output: '42' });
    expect(await registry.invoke('bare', {})).toMatchObject({ status: 'ok', output: 'bare' });
    expect(registry.get('bare')?.definition).toMatchObject({
      description: 'Calls bare.',
      parameters: { type: 'object' },
    });
    const fromSet = new ToolRegistry(
      new Set([make('a'), { name: 'b', description: 'B.', execute: () => 'b' }]),
    );
    expect(fromSet.names()).toEqual(['a', 'b']);
  });

  it('checks the options of a call to an unknown tool as invokeTool does', async () => {
    const registry = new ToolRegistry([make('ping')]);
    await expect(registry.invoke('nope', '{}', { timeout: 5 } as never)).rejects.toMatchObject({
      name: 'OptionsError',
      code: 'unknown_option',
      message: 'ToolRegistry.invoke(): unknown option "timeout" (did you mean "timeoutMs"?)',
    });
    await expect(registry.invoke('nope', '{}', { maxOutputBytes: -1 })).rejects.toMatchObject({
      name: 'OptionsError',
      code: 'invalid_option',
      message:
        'ToolRegistry.invoke(): maxOutputBytes must be an integer of at least 64 bytes (the truncation note alone takes up to 55), got -1',
    });
  });

  it('invokes a tool by name', async () => {
    const registry = new ToolRegistry([make('ping')]);
    expect(await registry.invoke('ping', '')).toMatchObject({ status: 'ok', output: 'ping' });
  });

  it('answers an unknown name with unknown_tool, naming it and listing the available tools', async () => {
    const registry = new ToolRegistry([make('search_orders'), make('issue_refund')]);
    expect(await registry.invoke('refund', {})).toEqual({
      status: 'unknown_tool',
      output: 'Tool "refund" not found. Available tools: search_orders, issue_refund',
      durationMs: 0,
    });
  });

  it('says when no tools are available', async () => {
    expect((await new ToolRegistry().invoke('x', {})).output).toBe(
      'Tool "x" not found. No tools are available.',
    );
  });

  it('shortens a very long unknown name and applies maxOutputBytes', async () => {
    const registry = new ToolRegistry([make('a')]);
    expect((await registry.invoke('n'.repeat(300), {})).output).toBe(
      `Tool "${'n'.repeat(100)}…" not found. Available tools: a`,
    );
    const many = new ToolRegistry(Array.from({ length: 20 }, (_, i) => make(`tool_${i}`)));
    const full = `Tool "missing" not found. Available tools: ${many.names().join(', ')}`;
    const marker = `\n[truncated: the full output was ${full.length} bytes]`;
    expect((await many.invoke('missing', {}, { maxOutputBytes: 80 })).output).toBe(
      full.slice(0, 80 - marker.length) + marker,
    );
  });
});
