import { describe, expect, it } from 'vitest';
import { MAX_WIDGET_BYTES, MAX_WIDGET_DEPTH, validateWidget, type Widget } from '../../src/tool/widget';

const valid: Record<string, Widget> = {
  Card: {
    type: 'Card',
    title: 'Order 42',
    children: [
      { type: 'Badge', label: 'shipped', color: 'success' },
      { type: 'Text', value: '3 items · 59.90 EUR' },
      { type: 'Card', children: [{ type: 'List', items: ['a', 'b'], ordered: true }] },
    ],
  },
  Text: { type: 'Text', value: '' },
  Badge: { type: 'Badge', label: 'new' },
  Table: {
    type: 'Table',
    columns: ['sku', 'qty', 'gift'],
    rows: [
      ['A-1', 2, false],
      ['B-2', 1, null],
    ],
  },
  Chart: {
    type: 'Chart',
    kind: 'pie',
    title: 'Sales',
    data: [
      { label: 'EU', value: 3 },
      { label: 'US', value: 5.5 },
    ],
  },
  List: { type: 'List', items: [] },
  Image: { type: 'Image', url: 'https://example.com/a.png', alt: 'A parcel' },
  'data: image': { type: 'Image', url: 'data:image/png;base64,AAAA', alt: 'pixel' },
  'http: image': { type: 'Image', url: 'http://example.com/a.png?size=2#x', alt: 'A parcel' },
  'JPEG data: image': { type: 'Image', url: 'data:image/jpeg;base64,/9j/4A==', alt: 'photo' },
  'GIF data: image': { type: 'Image', url: 'data:image/gif;base64,R0lGOD+/', alt: 'gif' },
  'WebP data: image': { type: 'Image', url: 'data:image/webp;base64,UklGRg==', alt: 'webp' },
};

describe('validateWidget', () => {
  it.each(Object.entries(valid))('accepts a valid %s widget as it is', (_, widget) => {
    expect(validateWidget(widget)).toEqual({ ok: true, widget });
  });

  it('drops keys a widget does not define', () => {
    expect(validateWidget({ type: 'Text', value: 'hi', onClick: 'alert(1)' })).toEqual({
      ok: true,
      widget: { type: 'Text', value: 'hi' },
    });
  });

  it.each([
    [
      'an unknown type',
      { type: 'Video' },
      'type',
      'expected one of "Card", "Text", "Badge", "Table", "Chart", "List", "Image"',
    ],
    ['a value that is not an object', 'Card', '(root)', 'expected object'],
    ['a missing field', { type: 'Text' }, 'value', 'expected string'],
    [
      'a bad colour, nested in a card',
      { type: 'Card', children: [{ type: 'Badge', label: 'x', color: 'pink' }] },
      'children[0].color',
      'expected one of "neutral", "success", "warning", "danger", "info"',
    ],
    [
      'a bad chart kind',
      { type: 'Chart', kind: 'radar', data: [] },
      'kind',
      'expected one of "bar", "line", "pie"',
    ],
    [
      'a non-finite chart value',
      { type: 'Chart', kind: 'bar', data: [{ label: 'a', value: Number.POSITIVE_INFINITY }] },
      'data[0].value',
      'expected number',
    ],
    [
      'a table row of the wrong width',
      { type: 'Table', columns: ['a', 'b'], rows: [['x']] },
      'rows[0]',
      'has 1 cell but the table has 2 columns',
    ],
    [
      'a table cell that is an object',
      { type: 'Table', columns: ['a'], rows: [[{}]] },
      'rows[0][0]',
      'expected a string, number, boolean or null',
    ],
    [
      'a javascript: image URL',
      { type: 'Image', url: 'javascript:alert(1)', alt: 'x' },
      'url',
      'must be an https: or http: URL, or a data:image/(png|jpeg|gif|webp);base64, URL',
    ],
    [
      'an image without alt text',
      { type: 'Image', url: 'https://example.com/a.png' },
      'alt',
      'expected string',
    ],
    ['list items that are not strings', { type: 'List', items: ['a', 2] }, 'items[1]', 'expected string'],
    [
      'a deeply nested problem',
      { type: 'Card', children: [{ type: 'Card', children: [{ type: 'Text', value: 1 }] }] },
      'children[0].children[0].value',
      'expected string',
    ],
  ])('refuses %s, naming the path', (_, widget, path, message) => {
    expect(validateWidget(widget)).toEqual({ ok: false, path, message });
  });
});

const badUrl = 'must be an https: or http: URL, or a data:image/(png|jpeg|gif|webp);base64, URL';
const spacedUrl = 'must not contain spaces or control characters';

describe('validateWidget: image URLs', () => {
  it.each([
    ['an SVG data: URL (it can hold script)', 'data:image/svg+xml;base64,PHN2Zz4=', badUrl],
    ['an SVG data: URL without base64', 'data:image/svg+xml,<svg onload=alert(1)>', spacedUrl],
    ['a data: URL that is not an image', 'data:text/html;base64,PGI+', badUrl],
    ['a data: image that is not base64', 'data:image/png,AAAA', badUrl],
    ['a data: image with characters outside base64', 'data:image/png;base64,AA"AA', badUrl],
    ['a javascript: URL in capitals', 'JAVASCRIPT:alert(1)', badUrl],
    ['a vbscript: URL', 'vbscript:msgbox(1)', badUrl],
    ['a file: URL', 'file:///etc/passwd', badUrl],
    ['an https: URL without a host', 'https://', badUrl],
    ['an https: URL without slashes', 'https:example.com/a.png', badUrl],
    ['a relative URL', '/images/a.png', badUrl],
    ['a protocol-relative URL', '//example.com/a.png', badUrl],
    ['an empty URL', '', badUrl],
    ['a URL with a space', 'https://example.com/a b.png', spacedUrl],
    ['a URL with a leading space', ' https://example.com/a.png', spacedUrl],
    ['a URL with a tab inside the scheme', 'java\tscript:alert(1)', spacedUrl],
    ['a URL with a newline', 'https://example.com/\n.png', spacedUrl],
    ['a URL with a NUL', 'https://example.com/\u0000.png', spacedUrl],
    ['a URL with a C1 control', 'https://example.com/\u0085.png', spacedUrl],
    ['a URL with a no-break space', 'https://example.com/\u00a0.png', spacedUrl],
    ['a URL with a line separator', 'https://example.com/\u2028.png', spacedUrl],
  ])('refuses %s', (_, url, message) => {
    expect(validateWidget({ type: 'Image', url, alt: 'x' })).toEqual({ ok: false, path: 'url', message });
  });
});

/** A Card holding a Card … `levels` widgets deep, the innermost a Text. */
function nested(levels: number): unknown {
  let widget: unknown = { type: 'Text', value: 'bottom' };
  for (let level = 1; level < levels; level++) widget = { type: 'Card', children: [widget] };
  return widget;
}
const pathAtLevel = (level: number) => Array.from({ length: level - 1 }, () => 'children[0]').join('.');

describe('validateWidget: hostile widgets', () => {
  it('refuses a Card that contains itself, naming where the cycle closes', () => {
    const card: Record<string, unknown> = { type: 'Card', title: 'loop' };
    card.children = [{ type: 'Text', value: 'a' }, card];
    expect(validateWidget(card)).toEqual({
      ok: false,
      path: 'children[1]',
      message: 'refers back to an enclosing object (a cycle)',
    });
  });

  it('refuses a cycle through arrays', () => {
    const rows: unknown[] = [];
    rows.push(rows);
    expect(validateWidget({ type: 'Table', columns: ['a'], rows })).toEqual({
      ok: false,
      path: 'rows[0]',
      message: 'refers back to an enclosing object (a cycle)',
    });
  });

  it('accepts the same widget reached twice without a cycle', () => {
    const badge = { type: 'Badge', label: 'x' } as const;
    const card = { type: 'Card', children: [badge, badge] } as const;
    expect(validateWidget(card)).toEqual({ ok: true, widget: card });
  });

  it(`accepts widgets nested ${MAX_WIDGET_DEPTH} levels deep`, () => {
    expect(MAX_WIDGET_DEPTH).toBe(32);
    expect(validateWidget(nested(32))).toMatchObject({ ok: true });
  });

  it('refuses a widget nested one level deeper, naming the first widget past the limit', () => {
    expect(validateWidget(nested(33))).toEqual({
      ok: false,
      path: pathAtLevel(33),
      message: 'is nested more than 32 levels deep',
    });
  });

  it('refuses a Card nested 5,000 deep without overflowing the stack', () => {
    expect(validateWidget(nested(5_000))).toEqual({
      ok: false,
      path: pathAtLevel(33),
      message: 'is nested more than 32 levels deep',
    });
  });

  it('refuses arrays nested 5,000 deep inside a table', () => {
    let cell: unknown = 'x';
    for (let i = 0; i < 5_000; i++) cell = [cell];
    const result = validateWidget({ type: 'Table', columns: ['a'], rows: [cell] });
    expect(result).toMatchObject({ ok: false, message: 'is nested too deeply' });
  });

  it('refuses a widget whose getter throws, naming the property', () => {
    const text = {
      type: 'Text',
      get value(): string {
        throw new Error('database closed');
      },
    };
    expect(validateWidget({ type: 'Card', children: [text] })).toEqual({
      ok: false,
      path: 'children[0].value',
      message: 'could not be read: database closed',
    });
  });

  it('says what a getter threw when it threw something without a message', () => {
    const badge = {
      type: 'Badge',
      get label(): string {
        throw undefined;
      },
    };
    expect(validateWidget(badge)).toEqual({
      ok: false,
      path: 'label',
      message: 'could not be read: its getter threw undefined',
    });
  });

  it('refuses a proxy that throws on every access', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        getOwnPropertyDescriptor() {
          throw new Error('trap');
        },
        has() {
          throw new Error('trap');
        },
      },
    );
    expect(validateWidget(hostile)).toEqual({
      ok: false,
      path: '(root)',
      message: 'could not be read: trap',
    });
  });

  it('reads each property once, so a getter cannot change its answer after validation', () => {
    let reads = 0;
    const text = {
      type: 'Text',
      get value(): unknown {
        reads += 1;
        return reads === 1 ? 'safe' : { evil: true };
      },
    };
    expect(validateWidget(text)).toEqual({ ok: true, widget: { type: 'Text', value: 'safe' } });
    expect(reads).toBe(1);
  });

  it('ignores the getters of keys a widget does not define', () => {
    const text = {
      type: 'Text',
      value: 'hi',
      get onClick(): string {
        throw new Error('never read');
      },
    };
    expect(validateWidget(text)).toEqual({ ok: true, widget: { type: 'Text', value: 'hi' } });
  });

  it(`accepts a widget of exactly ${MAX_WIDGET_BYTES} bytes of JSON and refuses one byte more`, () => {
    expect(MAX_WIDGET_BYTES).toBe(262_144);
    const overhead = JSON.stringify({ type: 'Text', value: '' }).length;
    const fits = { type: 'Text', value: 'a'.repeat(MAX_WIDGET_BYTES - overhead) };
    expect(validateWidget(fits)).toEqual({ ok: true, widget: fits });
    const over = { type: 'Text', value: 'a'.repeat(MAX_WIDGET_BYTES - overhead + 1) };
    expect(validateWidget(over)).toEqual({
      ok: false,
      path: '(root)',
      message: 'is over the widget size limit of 262144 bytes (as JSON)',
    });
  });

  it('counts the size in UTF-8 bytes with JSON escapes', () => {
    const overhead = JSON.stringify({ type: 'Text', value: '' }).length;
    const value = 'é'.repeat(Math.floor((MAX_WIDGET_BYTES - overhead) / 2) + 1); // 2 bytes each
    expect(validateWidget({ type: 'Text', value })).toMatchObject({ ok: false, path: '(root)' });
  });

  it('refuses a huge table quickly, without copying it', () => {
    const rows = Array.from({ length: 1_000_000 }, (_, i) => [i]);
    const started = performance.now();
    expect(validateWidget({ type: 'Table', columns: ['n'], rows })).toEqual({
      ok: false,
      path: '(root)',
      message: 'is over the widget size limit of 262144 bytes (as JSON)',
    });
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('refuses a sparse array of a billion items quickly', () => {
    expect(validateWidget({ type: 'List', items: new Array(1_000_000_000) })).toMatchObject({
      ok: false,
      path: '(root)',
    });
  });
});
