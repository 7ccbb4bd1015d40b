import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { decodeClientFrame, decodeServiceFrame, encodeFrame } from '../../src/wire/codec';
import { clientFrameSchema, serviceFrameSchema, utf8Length } from '../../src/wire/protocol';

describe('decodeServiceFrame', () => {
  it('decodes a tool_call whose arguments are a JSON string', () => {
    const raw = '{"type":"tool_call","callId":"c1","runId":"r1","toolName":"add","arguments":"{\\"a\\":1}"}';
    expect(decodeServiceFrame(raw)).toEqual({
      ok: true,
      frame: { type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'add', arguments: '{"a":1}' },
    });
  });

  it('names an unknown frame type', () => {
    expect(decodeServiceFrame('{"type":"nope"}')).toEqual({
      ok: false,
      code: 'unknown_type',
      message: 'unknown frame type "nope"',
    });
  });

  it('refuses text that is not JSON', () => {
    const result = decodeServiceFrame('{');
    expect(result.ok).toBe(false);
    expect(result.ok === false && result.code).toBe('invalid_json');
  });

  it('says why a frame is not JSON without quoting it: no cut of a secret reaches a log or an error frame', () => {
    expect(decodeServiceFrame('sk-live-0123456789abcdef')).toEqual({
      ok: false,
      code: 'invalid_json',
      message: 'frame is not JSON: invalid syntax',
    });
    expect(decodeServiceFrame('{"type":"ping"} sk-live-0123456789abcdef')).toEqual({
      ok: false,
      code: 'invalid_json',
      message: 'frame is not JSON: invalid syntax at position 16',
    });
  });

  it('refuses a frame over the size limit before parsing it', () => {
    const raw = JSON.stringify({ type: 'ping', id: 'x'.repeat(2000) });
    expect(decodeServiceFrame(raw, 1024)).toEqual({
      ok: false,
      code: 'frame_too_large',
      message: 'frame exceeds 1024 bytes',
    });
  });
});

describe('decodeClientFrame', () => {
  it('names each field that is wrong', () => {
    expect(decodeClientFrame('{"type":"tool_result","callId":"","status":"ok","output":1}')).toEqual({
      ok: false,
      code: 'invalid_frame',
      message: 'invalid tool_result frame: callId: must be at least 1; output: expected string',
      fields: ['callId', 'output'],
    });
  });

  it('refuses a JSON value that is not an object', () => {
    expect(decodeClientFrame('[1]')).toEqual({
      ok: false,
      code: 'invalid_frame',
      message: 'frame must be a JSON object',
    });
  });

  it('round-trips a frame through encodeFrame', () => {
    const frame = { type: 'tool_result', callId: '0', status: 'ok', output: '' } as const;
    expect(decodeClientFrame(encodeFrame(frame))).toEqual({ ok: true, frame });
  });
});

describe('utf8Length', () => {
  it('counts UTF-8 bytes, with a lone surrogate as three', () => {
    expect(utf8Length('aé€😀')).toBe(1 + 2 + 3 + 4);
    expect(utf8Length('\ud800x')).toBe(4);
  });
});

describe('frame fixtures (test/fixtures/frames)', () => {
  const root = fileURLToPath(new URL('../fixtures/frames/', import.meta.url));
  const read = (dir: string) =>
    readdirSync(join(root, dir))
      .filter((file) => file.endsWith('.json'))
      .sort()
      .map((file) => [file, JSON.parse(readFileSync(join(root, dir, file), 'utf8')) as unknown] as const);
  const typesOf = (schema: typeof clientFrameSchema | typeof serviceFrameSchema): string[] =>
    (
      schema._zod.def.options as Array<{
        _zod: { def: { shape: { type: { _zod: { def: { values: string[] } } } } } };
      }>
    ).map((option) => option._zod.def.shape.type._zod.def.values[0] ?? '');
  const clientTypes = new Set(typesOf(clientFrameSchema));
  const serviceTypes = new Set(typesOf(serviceFrameSchema));
  const valid = read('valid');
  const invalid = read('invalid') as ReadonlyArray<
    readonly [
      string,
      {
        direction: 'client' | 'service';
        maxPayloadBytes?: number;
        expect: { code: string; message: string; about?: Record<string, string> };
        raw?: string;
        frame?: unknown;
      },
    ]
  >;

  it.each(valid)('decodes valid/%s in every direction its type travels, unchanged', (_file, frame) => {
    const type = (frame as { type: string }).type;
    const directions = [
      ...(clientTypes.has(type) ? [decodeClientFrame] : []),
      ...(serviceTypes.has(type) ? [decodeServiceFrame] : []),
    ];
    expect(directions.length).toBeGreaterThan(0);
    for (const decode of directions) {
      expect(decode(JSON.stringify(frame))).toEqual({ ok: true, frame });
      expect(decode(encodeFrame(frame as Parameters<typeof encodeFrame>[0]))).toEqual({ ok: true, frame });
    }
  });

  it.each(invalid)('refuses invalid/%s with its code and message', (_file, spec) => {
    const decode = spec.direction === 'client' ? decodeClientFrame : decodeServiceFrame;
    const raw = spec.raw ?? JSON.stringify(spec.frame);
    // `fields` (the paths at fault) is pinned above and by test/fault/invalid-welcome.test.ts.
    const { fields: _, ...decoded } = decode(raw, spec.maxPayloadBytes) as { fields?: unknown };
    expect(decoded).toEqual({ ok: false, ...spec.expect });
  });

  // Frames whose only faults are in informative fields (src/wire/codec.ts): used without those fields.
  const informative = read('informative') as ReadonlyArray<
    readonly [
      string,
      {
        direction: 'client' | 'service';
        frame: unknown;
        expect: { frame: unknown; dropped?: string[] };
      },
    ]
  >;

  it.each(informative)('accepts informative/%s without its faulty informative fields', (_file, spec) => {
    const decode = spec.direction === 'client' ? decodeClientFrame : decodeServiceFrame;
    expect(decode(JSON.stringify(spec.frame))).toEqual({ ok: true, ...spec.expect });
  });

  it('has a valid and an invalid fixture for every frame type', () => {
    const all = [...new Set([...clientTypes, ...serviceTypes])].sort();
    expect(all).toHaveLength(29);
    const validTypes = new Set(valid.map(([, frame]) => (frame as { type: string }).type));
    const invalidTypes = new Set(invalid.map(([file]) => file.split('-')[0]?.replace(/\.json$/, '')));
    expect(all.filter((type) => !validTypes.has(type))).toEqual([]);
    expect(all.filter((type) => !invalidTypes.has(type))).toEqual([]);
  });
});
