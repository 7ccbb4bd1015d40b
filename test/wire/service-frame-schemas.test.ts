/**
 * A client decodes each service frame with the schema of its type alone (src/wire/protocol.ts
 * `serviceFrameSchemaOf`, built at the first frame of the type): what it accepts, returns and refuses, with which
 * issues, is what the union of every service frame gives; a type the service does not send is refused as before.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeServiceFrame } from '../../src/wire/codec';
import { ruleOf } from '../../src/wire/issue-text';
import { serviceFrameSchema, serviceFrameSchemaOf } from '../../src/wire/protocol';

const root = fileURLToPath(new URL('../fixtures/frames/', import.meta.url));
/** Every fixture frame (valid, invalid, informative) that is a JSON object with a string `type`. */
const frames = ['valid', 'invalid', 'informative'].flatMap((dir) =>
  readdirSync(join(root, dir))
    .filter((file) => file.endsWith('.json'))
    .sort()
    .flatMap((file) => {
      const spec = JSON.parse(readFileSync(join(root, dir, file), 'utf8')) as { frame?: unknown };
      const frame = dir === 'valid' ? spec : spec.frame;
      const type = (frame as { type?: unknown } | undefined)?.type;
      return typeof type === 'string' ? [[`${dir}/${file}`, type, frame] as const] : [];
    }),
);

describe("a service frame's schema", () => {
  it.each(frames)('parses %s as the union of every service frame does', (_file, type, frame) => {
    const union = serviceFrameSchema().safeParse(frame, { error: ruleOf });
    const own = serviceFrameSchemaOf(type)?.safeParse(frame, { error: ruleOf });
    if (own === undefined) {
      expect(union.success).toBe(false);
      expect(union.error?.issues.map((issue) => [issue.code, issue.path])).toEqual([
        ['invalid_union', ['type']],
      ]);
      return;
    }
    expect(own.success).toBe(union.success);
    if (own.success) expect(own.data).toEqual(union.data);
    else expect(own.error.issues).toEqual(union.error?.issues);
  });

  it.each(['hello', 'tool_result', 'teleport', '__proto__', 'constructor', 'toString', 'hasOwnProperty'])(
    'is none for %s, which the client refuses as an unknown frame type',
    (type) => {
      expect(serviceFrameSchemaOf(type)).toBeUndefined();
      expect(decodeServiceFrame(JSON.stringify({ type, callId: 'c1' }))).toEqual({
        ok: false,
        code: 'unknown_type',
        message: `unknown frame type ${JSON.stringify(type)}`,
      });
    },
  );

  it('refuses a malformed welcome with the message the union gave, and builds its schema once', () => {
    const welcome = {
      type: 'welcome',
      sessionId: '',
      resumed: 'no',
      heartbeatIntervalMs: 1.5,
      maxPayloadBytes: 10,
    };
    expect(decodeServiceFrame(JSON.stringify(welcome))).toEqual({
      ok: false,
      code: 'invalid_frame',
      message:
        'invalid welcome frame: sessionId: must be at least 1 character; resumed: must be a boolean; ' +
        'heartbeatIntervalMs: must be an integer; maxPayloadBytes: must be at least 1024',
      fields: ['sessionId', 'resumed', 'heartbeatIntervalMs', 'maxPayloadBytes'],
    });
    expect(serviceFrameSchemaOf('welcome')).toBe(serviceFrameSchemaOf('welcome'));
  });
});
