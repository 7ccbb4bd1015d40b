import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from '../src/redact';

const SECRET = 'sk-live-0123456789abcdef';

/**
 * A value of `depth` levels, each node's two fields the same node below: `depth + 1` objects, 2^depth paths. Each
 * node counts the reads of its fields (getters), so that a test tells how often the redactor read each node.
 */
function shared(depth: number, leaf: string) {
  const reads = { count: 0 };
  let node: object = { leaf };
  for (let level = 0; level < depth; level++) {
    const below = node;
    node = {
      get left() {
        reads.count++;
        return below;
      },
      get right() {
        reads.count++;
        return below;
      },
    };
  }
  return { value: node, reads };
}

describe('a value that shares its parts', () => {
  it('is searched once a part: 40 levels (2^40 paths) read 80 fields', () => {
    const redactor = new Redactor([SECRET]);
    const { value, reads } = shared(40, 'nothing to hide');
    expect(redactor.holds(value)).toBe(false);
    expect(reads.count).toBe(80);
  });

  it('is found to hold a secret at its bottom, reading each field once', () => {
    const redactor = new Redactor([SECRET]);
    const { value, reads } = shared(40, `key ${SECRET}`);
    expect(redactor.holds(value)).toBe(true);
    expect(reads.count).toBe(80);
  });

  it('is copied once a part, the copy sharing its parts as the value did', () => {
    const redactor = new Redactor([SECRET]);
    const { value, reads } = shared(40, `key ${SECRET}`);
    const copy = redactor.value(value) as { left: { left: unknown; right: unknown }; right: unknown };
    expect(reads.count).toBe(80);
    expect(copy.left).toBe(copy.right);
    expect(copy.left.left).toBe(copy.left.right);
    let bottom: unknown = copy;
    for (let level = 0; level < 40; level++) bottom = (bottom as { left: unknown }).left;
    expect(bottom).toEqual({ leaf: `key ${REDACTED}` });
  });

  it('keeps a cycle written "[Circular]" and a part shared beside it', () => {
    const redactor = new Redactor([SECRET]);
    const part = { key: SECRET };
    const root: Record<string, unknown> = { a: part, b: part };
    root.self = root;
    expect(redactor.value(root)).toEqual({ a: { key: REDACTED }, b: { key: REDACTED }, self: '[Circular]' });
  });

  it('in an error field is read once a part', () => {
    const redactor = new Redactor([SECRET]);
    const { value, reads } = shared(30, 'nothing to hide');
    const error = Object.assign(new Error('failed'), { details: value });
    expect(redactor.error(error)).toBe(error);
    expect(reads.count).toBeLessThanOrEqual(4 * 30);
  });

  it('copies an error held in two fields of each error of a chain once, with each field read at most once a level', () => {
    const redactor = new Redactor([SECRET]);
    const depth = 12;
    const reads = { count: 0 };
    let error = new Error(`key ${SECRET}`);
    for (let level = 0; level < depth; level++) {
      const below = error;
      error = new Error(`level ${level}`);
      for (const key of ['a', 'b'])
        Object.defineProperty(error, key, {
          enumerable: true,
          get() {
            reads.count++;
            return below;
          },
        });
    }
    const copy = redactor.error(error) as Error & { a: Error & { a: unknown; b: unknown }; b: unknown };
    // Each error's two fields are read by its copy and by each search of an error above it: depth² reads, where
    // copying each path read 2^depth.
    expect(reads.count).toBeLessThanOrEqual(2 * depth * (depth + 1));
    expect(copy.a).toBe(copy.b);
    expect(copy.a.a).toBe(copy.a.b);
    expect(copy.a).toBeInstanceOf(Error);
    expect(JSON.stringify(copy)).not.toContain(SECRET);
  });
});
