/**
 * Adapter for a tool without `parameters`: it announces an object with no properties and hands `execute` an
 * empty object, whatever keys the model sent.
 *
 * @module
 */
import type { SchemaAdapter } from './types';

/** The JSON Schema announced for a tool without parameters. */
export const EMPTY_OBJECT_SCHEMA = { type: 'object', properties: {} } as const;

/** Adapter for omitted `parameters`: accepts any object (arguments are decoded to an object first), yields `{}`. */
export function noneAdapter(): SchemaAdapter {
  return {
    kind: 'none',
    jsonSchema: { type: 'object', properties: {} },
    validate: () => ({ ok: true, value: {} }),
  };
}
