/**
 * The way back from `strict: true` (src/tool/strict.ts) for what the model sent: a `null` sent for a property that
 * was optional is removed before validation, so `execute` sees what it would have seen without `strict`. An
 * `anyOf` branch is told apart with the JSON Schema validator, so this code is loaded with it: through
 * src/tool/schema/validator.ts (`loadStrictRestore`), which the browser build loads on first use, in one chunk.
 *
 * @module
 */
import { Validator } from '@cfworker/json-schema';
import { isPlainObject } from '../json';
import type { JsonObject } from './schema/types';

/** How to take the `null`s of optional properties out of a value, per node of the schema. */
export type Plan =
  | { kind: 'leaf' }
  | { kind: 'object'; optional: ReadonlySet<string>; properties: ReadonlyMap<string, Plan> }
  | { kind: 'array'; items: Plan }
  | { kind: 'anyOf'; branches: ReadonlyArray<{ plan: Plan; schema: JsonObject }> }
  | { kind: 'ref'; ref: string };

const RESTORE_LEAF: Plan = { kind: 'leaf' };

function restoreWith(
  plan: Plan,
  value: unknown,
  plans: ReadonlyMap<string, Plan>,
  root: JsonObject,
  depth: number,
): unknown {
  if (depth > 64) return value;
  switch (plan.kind) {
    case 'leaf':
      return value;
    case 'ref': {
      const target = plans.get(plan.ref);
      return target === undefined ? value : restoreWith(target, value, plans, root, depth + 1);
    }
    case 'array': {
      if (!Array.isArray(value)) return value;
      const items = value.map((item) => restoreWith(plan.items, item, plans, root, depth + 1));
      return items.every((item, index) => item === value[index]) ? value : items;
    }
    case 'anyOf': {
      if (value === null || typeof value !== 'object') return value;
      if (plan.branches.every((branch) => branch.plan.kind === 'leaf')) return value;
      const branch = plan.branches.find(({ schema }) => matches(schema, root, value));
      return branch === undefined ? value : restoreWith(branch.plan, value, plans, root, depth + 1);
    }
    case 'object': {
      if (!isPlainObject(value)) return value;
      let copy: Record<string, unknown> | undefined;
      for (const [key, item] of Object.entries(value)) {
        const next =
          item === null && plan.optional.has(key)
            ? undefined
            : restoreWith(plan.properties.get(key) ?? RESTORE_LEAF, item, plans, root, depth + 1);
        if (next === item) continue;
        copy ??= { ...value };
        if (next === undefined) delete copy[key];
        else copy[key] = next;
      }
      return copy ?? value;
    }
  }
}

function definitionsOf(root: JsonObject): JsonObject {
  const out: JsonObject = {};
  if (root.$defs !== undefined) out.$defs = root.$defs;
  if (root.definitions !== undefined) out.definitions = root.definitions;
  return out;
}

const validators = new WeakMap<object, Validator>();

/** `true` when `value` matches a branch (the validator is made once per branch, from a copy: it annotates its schema). */
function matches(branch: JsonObject, root: JsonObject, value: unknown): boolean {
  let validator = validators.get(branch);
  if (validator === undefined) {
    const schema = JSON.parse(JSON.stringify({ ...branch, ...definitionsOf(root) })) as JsonObject;
    validator = new Validator(schema as never, '2020-12', false);
    validators.set(branch, validator);
  }
  return validator.validate(value).valid;
}

/**
 * `args` without the `null`s of the properties `plan` marks optional (a copy where something was removed).
 * `plans`: the plans of the root (`#`) and of its definitions (`#/$defs/<name>`), for `$ref`s; `root`: the strict
 * schema, whose definitions an `anyOf` branch is matched with.
 */
export function restore(
  plan: Plan,
  args: unknown,
  plans: ReadonlyMap<string, Plan>,
  root: JsonObject,
): unknown {
  return restoreWith(plan, args, plans, root, 0);
}
