import { describe, expect, it } from 'vitest';
import { validateWidget, type Widget } from '../src/widget';

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
      'must be an https:, http: or data:image/ URL',
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
