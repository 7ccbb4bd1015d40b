/**
 * A default computed at each parse (a function) is not announced: the value computed when the tool was made would
 * be stale (`looksComputed` in src/tool/schema/adapter.ts). A default that is a value is announced.
 */
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod3';
import { invokeTool, type ToolParameters, tool } from '../../../src/index';
import { looksComputed } from '../../../src/tool/schema/adapter';

const announcedOf = (parameters: ToolParameters) =>
  tool({ name: 't', description: 'd', parameters, execute: (input) => input }).definition.parameters;

/** A default that counts: a new value at each read. */
function counting() {
  let n = 0;
  return () => `id-${++n}`;
}
const clock = () => new Date().toISOString();

describe('a default computed at each parse', () => {
  it.each([
    ['zod 4 counter', z.object({ id: z.string().default(counting()) })],
    ['zod 4 clock', z.object({ id: z.string().default(clock) })],
    ['zod 4 epoch milliseconds', z.object({ id: z.number().default(() => Date.now()) })],
    ['zod 4 prefault', z.object({ id: z.string().prefault(counting()) })],
    ['zod 3 counter', z3.object({ id: z3.string().default(counting()) })],
    ['zod 3 clock', z3.object({ id: z3.string().default(clock) })],
    ['valibot function', v.object({ id: v.optional(v.string(), counting()) })],
    ['valibot clock', v.object({ id: v.optional(v.string(), clock) })],
    ['arktype counter', type({ id: ['string', '=', counting()] })],
    ['arktype clock', type({ id: ['string', '=', clock] })],
  ] as Array<[string, ToolParameters]>)(
    '%s: is not announced, and is computed at each call',
    async (_, parameters) => {
      const announced = announcedOf(parameters) as { properties: { id: Record<string, unknown> } };
      expect(announced.properties.id).not.toHaveProperty('default');
      const made = tool({ name: 't', description: 'd', parameters, execute: (input) => input });
      const { status, value } = await invokeTool(made, {});
      expect(status).toBe('ok');
      expect(value).toHaveProperty('id');
    },
  );

  it.each([
    ['zod 4', z.object({ default: z.object({ id: z.string().default(counting()) }) })],
    ['valibot', v.object({ default: v.object({ id: v.optional(v.string(), counting()) }) })],
    ['arktype', type({ default: { id: ['string', '=', counting()] } })],
  ] as Array<[string, ToolParameters]>)(
    '%s: is not announced under a property named as a data keyword (default), which is',
    (_, parameters) => {
      const { properties } = announcedOf(parameters) as { properties: { default?: { properties: object } } };
      expect(properties.default?.properties).toEqual({ id: { type: 'string' } });
    },
  );

  it.each([
    ['zod 4', z.object({ n: z.number().default(3), tags: z.array(z.string()).default(() => []) })],
    ['zod 3', z3.object({ n: z3.number().default(3), tags: z3.array(z3.string()).default([]) })],
    ['valibot', v.object({ n: v.optional(v.number(), 3), tags: v.optional(v.array(v.string()), []) })],
    ['arktype', type({ n: 'number = 3', tags: ['string[]', '=', () => []] })],
  ] as Array<[string, ToolParameters]>)(
    '%s: a value (or a function giving the same value) is announced',
    (_, parameters) => {
      const announced = announcedOf(parameters) as { properties: Record<string, Record<string, unknown>> };
      expect(announced.properties.n?.default).toBe(3);
      expect(announced.properties.tags?.default).toEqual([]);
    },
  );
});

describe('looksComputed', () => {
  const now = Date.parse('2026-12-04T10:00:00.000Z');
  it('is true for two reads that differ, or a read of the clock within a minute of now', () => {
    expect(looksComputed('a', () => 'b', now)).toBe(true);
    expect(looksComputed('2026-12-04T10:00:30.000Z', () => '2026-12-04T10:00:30.000Z', now)).toBe(true);
    expect(looksComputed('2026-12-04', () => '2026-12-04', now)).toBe(true);
    expect(looksComputed(now - 5_000, () => now - 5_000, now)).toBe(true);
    expect(looksComputed(Math.floor(now / 1000), () => Math.floor(now / 1000), now)).toBe(true);
    expect(
      looksComputed(
        'x',
        () => {
          throw new Error('no');
        },
        now,
      ),
    ).toBe(true);
  });

  it('is false for the same value twice that is no clock read of now', () => {
    expect(looksComputed('a', () => 'a', now)).toBe(false);
    expect(looksComputed({ a: [1] }, () => ({ a: [1] }), now)).toBe(false);
    expect(looksComputed('1970-01-01T00:00:00.000Z', () => '1970-01-01T00:00:00.000Z', now)).toBe(false);
    expect(looksComputed('2026-12-03', () => '2026-12-03', now)).toBe(false);
    expect(looksComputed(3, () => 3, now)).toBe(false);
  });
});
