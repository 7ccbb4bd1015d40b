import { describe, expect, it } from 'vitest';
import { ToolDefinitionError } from '../../src/errors';
import { content, invokeTool, tool } from '../../src/index';

// A 1×1 PNG.
const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const PNG = new Uint8Array(Buffer.from(PNG_BASE64, 'base64'));

describe('content()', () => {
  it('makes parts with binary data as base64, and gives the model their text with a note per image or file', async () => {
    const chart = tool({
      name: 'chart',
      description: 'Draws a chart.',
      execute: () =>
        content([
          { type: 'text', text: 'Sales of Q3.' },
          { type: 'image', data: PNG, mediaType: 'image/png' },
          { type: 'json', value: { total: 390n } },
          { type: 'file', data: 'YSxiCjEsMgo=', mediaType: 'text/csv', filename: 'q3.csv' },
        ]),
    });
    const result = await invokeTool(chart, {});
    expect(result.status).toBe('ok');
    expect(result.output).toBe(
      'Sales of Q3.\n[image: image/png, 70 bytes]\n{"total":"390"}\n[file q3.csv: text/csv, 8 bytes]',
    );
    expect(result.content).toEqual([
      { type: 'text', text: 'Sales of Q3.' },
      { type: 'image', data: PNG_BASE64, mediaType: 'image/png' },
      { type: 'json', value: { total: '390' } },
      { type: 'file', data: 'YSxiCjEsMgo=', mediaType: 'text/csv', filename: 'q3.csv' },
    ]);
  });

  it('never takes an ordinary result with a content key for content', async () => {
    const plain = tool({
      name: 'plain',
      description: 'A plain result.',
      execute: () => ({ content: [{ type: 'text', text: 'x' }] }),
    });
    const result = await invokeTool(plain, {});
    expect(result.output).toBe('{"content":[{"type":"text","text":"x"}]}');
    expect(result.content).toBeUndefined();
  });

  it('works from toModelOutput, keeps a widget given beside the parts, and is text only in a preliminary result', async () => {
    const outputs: string[] = [];
    const report = tool({
      name: 'report',
      description: 'A report.',
      async *execute() {
        yield content([
          { type: 'text', text: 'draft' },
          { type: 'image', data: PNG, mediaType: 'image/png' },
        ]);
        return { rows: 3, png: PNG_BASE64 };
      },
      toModelOutput: (out: unknown) =>
        content([{ type: 'image', data: (out as { png: string }).png, mediaType: 'image/png' }], {
          widget: { type: 'Badge', label: 'report', color: 'info' },
        }),
    });
    const result = await invokeTool(report, {}, { onPreliminary: (p) => outputs.push(p.output) });
    expect(outputs).toEqual(['draft\n[image: image/png, 70 bytes]']);
    expect(result.output).toBe('[image: image/png, 70 bytes]');
    expect(result.content).toEqual([{ type: 'image', data: PNG_BASE64, mediaType: 'image/png' }]);
    const withWidget = tool({
      name: 'with_widget',
      description: 'Parts and a widget.',
      execute: () =>
        content([{ type: 'text', text: 'hi' }], { widget: { type: 'Text', value: 'for the UI' } }),
    });
    expect(await invokeTool(withWidget, {})).toMatchObject({
      output: 'hi',
      widget: { type: 'Text', value: 'for the UI' },
      content: [{ type: 'text', text: 'hi' }],
    });
  });

  it('refuses malformed parts when they are made, naming the part', () => {
    const cases: Array<[unknown, string]> = [
      [[], 'content(): parts must be an array of 1 to 64 parts'],
      [
        [{ type: 'image', data: PNG, mediaType: 'image/svg+xml' }],
        'content(): part 0: mediaType must be one of image/png, image/jpeg, image/gif, image/webp, got image/svg+xml',
      ],
      [
        [
          { type: 'text', text: 'ok' },
          { type: 'file', data: 'not base64!', mediaType: 'text/plain' },
        ],
        'content(): part 1: data must be bytes or a base64 string',
      ],
      [[{ type: 'audio' }], 'content(): part 0: unknown type "audio"'],
    ];
    for (const [parts, message] of cases) {
      expect(() => content(parts as never)).toThrow(new ToolDefinitionError('invalid_content', message));
    }
  });
});
