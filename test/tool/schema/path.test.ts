import { describe, expect, it } from 'vitest';
import { formatPath, pointerToSegments } from '../../../src/tool/schema/adapter';

describe('formatPath', () => {
  it.each([
    [[], '(root)'],
    [undefined, '(root)'],
    [['items', 0, 'sku'], 'items[0].sku'],
    [[{ key: 'items' }, { key: 1 }], 'items[1]'],
    [['tags', 'a b'], 'tags["a b"]'],
    [['tags', '0'], 'tags["0"]'],
    [[0, 'x'], '[0].x'],
    [['$ok', '_too'], '$ok._too'],
    [['quote"d'], '["quote\\"d"]'],
  ] as const)('renders %j as %s', (segments, expected) => {
    expect(formatPath(segments)).toBe(expected);
  });
});

describe('pointerToSegments', () => {
  it('makes a segment an index only inside an array', () => {
    const instance = { items: [{ sku: 1 }], tags: { '0': 'x' } };
    expect(pointerToSegments('#/items/0/sku', instance)).toEqual(['items', 0, 'sku']);
    expect(pointerToSegments('#/tags/0', instance)).toEqual(['tags', '0']);
  });

  it('decodes URI escapes and JSON Pointer escapes', () => {
    expect(pointerToSegments('#/a%20b/c~1d/e~0f', {})).toEqual(['a b', 'c/d', 'e~f']);
  });

  it('maps the root to no segments', () => {
    expect(pointerToSegments('#', {})).toEqual([]);
    expect(pointerToSegments('', {})).toEqual([]);
  });
});
