/**
 * Bounds shared by every layer.
 *
 * @module
 */

/**
 * The longest delay a timer honours, in milliseconds (2,147,483,647, about 24.8 days): past it Node and browsers
 * fire `setTimeout` after 1 ms instead. Every duration option is at most this.
 */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * The deepest nesting of a call's arguments (objects and arrays alike: `{}` is 1 level, `{ "a": [] }` 2), checked
 * before validation; deeper arguments get `invalid_arguments`. A recursive schema would otherwise walk them until
 * the stack overflows (and zod keeps memory when it does). Models send a few levels.
 */
export const MAX_ARGUMENT_DEPTH = 64;

/**
 * Deepest nesting of objects and arrays in a frame either side accepts (the frame object is level 1), and in a
 * stub HTTP request body; deeper is refused (`invalid_frame`, HTTP 400) before anything recursive reads it. A
 * `tool_call`'s `arguments` do not count: the client answers them `invalid_arguments` past
 * {@link MAX_ARGUMENT_DEPTH}.
 */
export const MAX_FRAME_DEPTH = 128;

/**
 * Deepest nesting of a JSON value a tool puts in a frame beside its result's text: `ctx.emit()` data (deeper is
 * recorded as `{ truncated: true, bytes }`), a `content()` JSON part and a `ctx.askQuestion()` schema (deeper is
 * refused); well within {@link MAX_FRAME_DEPTH}, so the frame is never refused for its nesting.
 */
export const MAX_VALUE_DEPTH = 64;

/**
 * How long `client.decide()` waits for the service's answer to a decision (feature `decisions`: `approval_applied`
 * or an `error` naming its request), in milliseconds from the call, while the socket stays open: past it the
 * decision rejects with `ApprovalError` `timeout` (whether the service applied it is unknown; a second decision is
 * refused `not_pending` if it did). A service answers at once; this bounds one that never does. In a browser the
 * load of the decision code at a page's first `decide()` counts within it: the whole `decide()` has this bound.
 */
export const DECISION_ANSWER_TIMEOUT_MS = 30_000;
