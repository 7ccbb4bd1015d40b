import { describe, expect, it } from 'vitest';
import { decodeClientFrame, decodeServiceFrame, encodeFrame, utf8Length } from '../src/protocol';

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
