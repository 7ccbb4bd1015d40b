/**
 * The rule for schemas whose input side is unknown, the same for zod 3 and zod 4.
 *
 * `z.unknown()` and `z.any()` (and a `.transform()` or `.refine()` of them) accept any JSON value; they are
 * announced as `{}`, which says exactly that, so they are fine wherever a value may be anything (as a whole
 * `parameters` they are still refused: parameters must describe an object). A `z.preprocess(fn, schema)`, or a
 * pipe from `z.unknown()` / `z.any()` into a narrower schema, accepts only what gets through `fn` or the pipe:
 * no JSON Schema says that, and announcing either `{}` or the inner schema would tell the model something
 * validation does not do. Those are refused when the tool is made (`unsupported_schema`), unless what they lead
 * into accepts anything too (`z.preprocess(fn, z.unknown())`).
 *
 * @module
 */

/** Why a `z.preprocess()` into a narrower schema is refused. */
export const PREPROCESS_MESSAGE =
  'z.preprocess() accepts whatever its function turns into a valid value, which JSON Schema cannot describe; ' +
  'describe what the model sends and use .transform() instead';

/** Why a pipe from `z.unknown()` / `z.any()` into a narrower schema is refused. */
export const UNKNOWN_PIPE_MESSAGE =
  'a pipe from z.unknown() or z.any() into a narrower schema accepts only what that schema accepts, which ' +
  'JSON Schema cannot describe as its input; use the narrower schema itself';
