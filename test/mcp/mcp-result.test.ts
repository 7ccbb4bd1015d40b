import { contentPartText, mcpResultText } from 'toolwire/mcp';
import { describe, expect, it } from 'vitest';

describe('contentPartText', () => {
  it('reads text parts and embedded text resources verbatim', () => {
    expect(contentPartText({ type: 'text', text: 'a\nb' })).toBe('a\nb');
    expect(contentPartText({ type: 'text', text: '' })).toBe('');
    expect(
      contentPartText({
        type: 'resource',
        resource: { uri: 'memo://1', mimeType: 'text/plain', text: 'memo' },
      }),
    ).toBe('memo');
  });

  it('puts a note naming the kind, the media type and the size in place of binary content', () => {
    expect(contentPartText({ type: 'image', data: 'AAAA', mimeType: 'image/png' })).toBe(
      '[image omitted: image/png, 3 bytes]',
    );
    expect(contentPartText({ type: 'audio', data: 'AAA=', mimeType: 'audio/wav' })).toBe(
      '[audio omitted: audio/wav, 2 bytes]',
    );
    expect(
      contentPartText({
        type: 'resource',
        resource: { uri: 'file:///a.pdf', mimeType: 'application/pdf', blob: 'AA==' },
      }),
    ).toBe('[resource omitted: file:///a.pdf, application/pdf, 1 byte]');
    expect(contentPartText({ type: 'image' })).toBe('[image omitted]');
  });

  it('names a resource link by its URI and name', () => {
    expect(contentPartText({ type: 'resource_link', uri: 'file:///r/a.pdf', name: 'a.pdf' })).toBe(
      '[resource link: file:///r/a.pdf (a.pdf)]',
    );
  });

  it('notes a part of an unknown type, and never throws on junk', () => {
    expect(contentPartText({ type: 'hologram' })).toBe('[hologram content omitted]');
    expect(contentPartText({})).toBe('[unknown content omitted]');
    expect(contentPartText(null)).toBe('[content omitted]');
    expect(contentPartText('text')).toBe('[content omitted]');
  });
});

describe('mcpResultText', () => {
  it('joins the parts with newlines', () => {
    expect(
      mcpResultText({
        content: [
          { type: 'text', text: 'one' },
          { type: 'image', data: 'AAAA', mimeType: 'image/jpeg' },
          { type: 'text', text: 'two' },
        ],
      }),
    ).toBe('one\n[image omitted: image/jpeg, 3 bytes]\ntwo');
  });

  it('reads structuredContent as JSON when there is no content, and nothing as empty', () => {
    expect(mcpResultText({ content: [], structuredContent: { temperature: 20, unit: 'C' } })).toBe(
      '{"temperature":20,"unit":"C"}',
    );
    expect(mcpResultText({ content: [] })).toBe('');
    expect(mcpResultText(undefined)).toBe('');
  });

  it('reads the toolResult of protocol 2024-10-07', () => {
    expect(mcpResultText({ toolResult: 'plain' })).toBe('plain');
    expect(mcpResultText({ toolResult: { ok: true } })).toBe('{"ok":true}');
  });
});
