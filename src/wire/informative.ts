/**
 * The informative fields of each frame: fields a receiver drops, rather than refuse the whole frame, when their
 * value is not what the protocol says (PROTOCOL.md §12, "Informative fields"). A frame whose only faults are in
 * these fields is used without them; the decoder says which it dropped, and the receiver logs it.
 *
 * A path names a field from the frame's root, `*` standing for any array index. Dropping an array element
 * removes it from its array (an unknown feature name); dropping an object field deletes it.
 *
 * @module
 */

import type { Logger } from '../logger';

/** Informative fields of the frames the service sends. */
export const INFORMATIVE_SERVICE_FIELDS: Readonly<Record<string, readonly string[]>> = {
  // Names a peer does not know are ignored, never refused (§2); a lease without a valid leaseMs is no lease (§18.4);
  // without a valid sessionGraceMs the client assumes the default (§15).
  welcome: ['features', 'features.*', 'leaseMs', 'maxCallDurationMs', 'sessionGraceMs'],
  // The trace context is informative (§18.10); the reason of a rejection is text for the model.
  tool_call: ['traceparent', 'tracestate', 'reason'],
  // Any reason is a plain cancel (§6).
  cancel: ['reason'],
  // `seq` only drops repeats after a resume (§10.2); `data` is anything already.
  run_event: ['seq'],
  // A run_result is never refused for what it reports (§10.1).
  run_result: ['model', 'error', 'code', 'toolCalls.*.content', 'toolCalls.*.widget'],
  // Any status but answered and declined is cancelled (§4.3), one that is not a string too.
  answer: ['status', 'reason'],
};

/** Informative fields of the frames a client sends. */
export const INFORMATIVE_CLIENT_FIELDS: Readonly<Record<string, readonly string[]>> = {
  // Unknown names are ignored (§2, §10.2); `sideEffect` absent is `external` (§4.1); the reason is for the approver.
  hello: [
    'features',
    'features.*',
    'runEventKinds',
    'runEventKinds.*',
    'tools.*.sideEffect',
    'tools.*.approvalReason',
  ],
  tools_update: ['tools.*.sideEffect', 'tools.*.approvalReason'],
  tool_result: ['durationMs'],
  run_cancel: ['reason'],
};

/**
 * The informative field an issue at `path` falls in (the longest pattern of `patterns` that is a prefix of it),
 * as a concrete path; `undefined` when the issue is in a field that is not informative.
 */
export function informativePath(
  patterns: readonly string[] | undefined,
  path: readonly PropertyKey[],
): PropertyKey[] | undefined {
  let best: PropertyKey[] | undefined;
  for (const pattern of patterns ?? []) {
    const segments = pattern.split('.');
    if (segments.length > path.length || (best !== undefined && segments.length <= best.length)) continue;
    const matches = segments.every((segment, i) =>
      segment === '*' ? typeof path[i] === 'number' : segment === path[i],
    );
    if (matches) best = path.slice(0, segments.length);
  }
  return best;
}

/** Drops the fields at `paths` from `value` (a freshly parsed frame, changed in place). */
export function dropFields(value: Record<string, unknown>, paths: readonly PropertyKey[][]): void {
  const arrays = new Set<unknown[]>();
  const removed = Symbol('dropped');
  for (const path of paths) {
    let parent: unknown = value;
    for (const key of path.slice(0, -1)) parent = (parent as Record<PropertyKey, unknown> | undefined)?.[key];
    const last = path[path.length - 1] as PropertyKey;
    if (Array.isArray(parent) && typeof last === 'number') {
      parent[last] = removed;
      arrays.add(parent);
    } else if (typeof parent === 'object' && parent !== null)
      delete (parent as Record<PropertyKey, unknown>)[last];
  }
  for (const array of arrays) {
    const kept = array.filter((item) => item !== removed);
    array.length = 0;
    array.push(...kept);
  }
}

/**
 * Logs the informative fields dropped from a frame: a `warn` the first time a field of a frame type is dropped
 * (on this socket: one logger per socket), `debug` after that, so a service that gets a field wrong in every
 * frame is said once. The line names the frame type, its call id if any, and the field; never its value.
 */
export function droppedFieldsLog(
  logger: Pick<Logger, 'warn' | 'debug'>,
  peer: string,
): (frame: { type: string; callId?: unknown }, dropped: readonly string[]) => void {
  const said = new Set<string>();
  return (frame, dropped) => {
    const fields = {
      type: frame.type,
      ...(typeof frame.callId === 'string' ? { callId: frame.callId } : {}),
    };
    for (const problem of dropped) {
      const key = `${frame.type} ${problem.slice(0, problem.indexOf(':')).replace(/\.\d+/g, '.*')}`;
      const message = `an informative field of a ${frame.type} frame from the ${peer} is invalid and was ignored: ${problem}`;
      if (said.has(key)) logger.debug(fields, message);
      else logger.warn(fields, message);
      said.add(key);
    }
  };
}
