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
import { seededRandom } from '../support/tcp-proxy';
import { CLIENT_FRAME_TYPES, SERVICE_FRAME_TYPES } from './frame-types';

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

/*
 * Many more frames than the fixtures: each fixture (of either direction) changed a few times over, seeded. A field
 * dropped, added, or given a value of another type or size, `type` set to each frame type of either direction or to a
 * name of Object.prototype, nested values broken (a result's content parts, a call's steps): what each type's schema
 * does with such a frame is what the union does, and a frame of a type the service does not send is refused as the
 * union refused it. Seeded (`seededRandom`): the same frames on every run.
 */

/**
 * Names no frame has (Object.prototype's among them): a changed frame's type is one of the service's frames half the
 * time, else one of a client's frames (./frame-types.ts) or one of these.
 */
const ODD_TYPES = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '',
  'WELCOME',
  'x'.repeat(70),
];
/** Values of every JSON type and of sizes near the protocol's bounds. */
const VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  1.5,
  1e21,
  '',
  'call_1',
  'a'.repeat(257),
  'a'.repeat(600),
  [],
  [''],
  ['call_1'],
  {},
  { '': 1 },
  [{ type: 'text', text: 1 }],
  [{ type: 'image', data: '!!', mediaType: 'image/svg+xml' }],
  [{ type: 'nope' }],
  { kind: 1 },
  { type: 'json' },
  1024,
];

/** `value` with one change, at its root or nested. */
function mutated(value: unknown, random: () => number, depth = 0): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  if (typeof value !== 'object' || value === null || random() < 0.15)
    return random() < 0.5 ? pick(VALUES) : value;
  if (Array.isArray(value)) {
    const list = [...value];
    if (list.length > 0 && random() < 0.6) {
      const at = Math.floor(random() * list.length);
      list[at] = mutated(list[at], random, depth + 1);
    } else list.push(pick(VALUES));
    return list;
  }
  const frame = { ...(value as Record<string, unknown>) };
  const keys = Object.keys(frame);
  const roll = random();
  if (roll < 0.2 && keys.length > 0) delete frame[pick(keys)];
  else if (roll < 0.35)
    frame[pick(['extra', 'callId', 'content', 'result', 'owed', 'steps', 'traceparent'])] = pick(VALUES);
  else if (roll < 0.5 && depth === 0)
    frame.type = random() < 0.5 ? pick(SERVICE_FRAME_TYPES) : pick([...CLIENT_FRAME_TYPES, ...ODD_TYPES]);
  else if (keys.length > 0) {
    const key = pick(keys);
    frame[key] = mutated(frame[key], random, depth + 1);
  }
  return frame;
}

describe('a service frame changed at random', () => {
  it('is parsed by its type schema as the union parses it, over 3,000 seeded frames', () => {
    const random = seededRandom(28);
    const bases = frames.map(([, , frame]) => frame);
    let compared = 0;
    let unknown = 0;
    for (let i = 0; i < 3000; i++) {
      let frame = bases[Math.floor(random() * bases.length)];
      for (let times = 1 + Math.floor(random() * 3); times > 0; times--) frame = mutated(frame, random);
      const type = (frame as { type?: unknown } | null)?.type;
      if (typeof type !== 'string') continue;
      const union = serviceFrameSchema().safeParse(frame, { error: ruleOf });
      const own = serviceFrameSchemaOf(type)?.safeParse(frame, { error: ruleOf });
      if (own === undefined) {
        unknown++;
        expect(union.error?.issues.map((issue) => [issue.code, issue.path])).toEqual([
          ['invalid_union', ['type']],
        ]);
        continue;
      }
      compared++;
      expect(own.success).toBe(union.success);
      if (own.success) expect(own.data).toEqual(union.data);
      else expect(own.error.issues).toEqual(union.error?.issues);
    }
    // Both sides were exercised: frames of the service's types, and of types it does not send.
    expect(compared).toBeGreaterThan(1000);
    expect(unknown).toBeGreaterThan(500);
  });
});
