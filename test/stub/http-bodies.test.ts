import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { cancelBody, decisionBody, parseBody, startRunBody } from '../../server-stub/http-bodies';
import { HttpError } from '../../server-stub/http-io';
import { scriptedModel } from '../../server-stub/index';
import { agent, http, stub } from './helpers';

/** What `parseBody` throws for this body, as the HTTP API answers it. */
function refusal(schema: Parameters<typeof parseBody>[0], body: unknown) {
  try {
    parseBody(schema, body);
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    const { status, code, message } = error as HttpError;
    return { status, code, message };
  }
  throw new Error('the body was accepted');
}

const invalid = (message: string) => ({ status: 400, code: 'invalid_request', message });

describe('HTTP request bodies', () => {
  it('refuses with an HttpError named HttpError (a string that survives a minifier), its status and code', () => {
    const error = new HttpError(404, 'unknown_agent', 'no agent named "x"');
    expect([error.name, error.status, error.code, error.message]).toEqual([
      'HttpError',
      404,
      'unknown_agent',
      'no agent named "x"',
    ]);
    expect(String(error)).toBe('HttpError: no agent named "x"');
  });

  it('accepts a run by agent name or definition, with or without maxTurns, and drops unknown fields', () => {
    expect(parseBody(startRunBody, { agent: 'known', input: 'hi', extra: 1 })).toEqual({
      agent: 'known',
      input: 'hi',
    });
    expect(parseBody(startRunBody, { agent: agent('a', ['t']), input: '', maxTurns: 3 })).toEqual({
      agent: { name: 'a', instructions: 'You are a.', tools: ['t'] },
      input: '',
      maxTurns: 3,
    });
  });

  it('names the field of a malformed run body', () => {
    expect(refusal(startRunBody, [1])).toEqual(invalid('request body must be a JSON object'));
    expect(refusal(startRunBody, null)).toEqual(invalid('request body must be a JSON object'));
    expect(refusal(startRunBody, { agent: 'known' })).toEqual(invalid('input must be a string'));
    expect(refusal(startRunBody, { agent: 'known', input: 7 })).toEqual(invalid('input must be a string'));
    for (const maxTurns of [0, 1.5, '3', null]) {
      expect(refusal(startRunBody, { agent: 'known', input: 'x', maxTurns })).toEqual(
        invalid('maxTurns must be an integer from 1 to 9007199254740991'),
      );
    }
    expect(refusal(startRunBody, { agent: 5, input: 'x' })).toEqual(
      invalid('agent must be an agent name or an agent definition ({ name, instructions, tools })'),
    );
    expect(refusal(startRunBody, { input: 'x' })).toEqual(
      invalid('agent must be an agent name or an agent definition ({ name, instructions, tools })'),
    );
    expect(
      refusal(startRunBody, { agent: { name: 'a', instructions: 'i', tools: [1] }, input: 'x' }),
    ).toEqual(invalid('agent.tools[0] must be a string'));
  });

  it('reports the first field at fault, in the order the body is documented', () => {
    expect(refusal(startRunBody, { agent: 5, input: 5, maxTurns: 0 })).toEqual(
      invalid('agent must be an agent name or an agent definition ({ name, instructions, tools })'),
    );
    expect(refusal(decisionBody, { approved: 'yes', reason: 5 })).toEqual(
      invalid('approved must be a boolean'),
    );
  });

  it('names the field of a malformed decision body', () => {
    expect(parseBody(decisionBody, { approved: false, reason: 'no' })).toEqual({
      approved: false,
      reason: 'no',
    });
    expect(refusal(decisionBody, {})).toEqual(invalid('approved must be a boolean'));
    expect(refusal(decisionBody, { approved: 1 })).toEqual(invalid('approved must be a boolean'));
    expect(refusal(decisionBody, { approved: true, reason: null })).toEqual(
      invalid('reason must be a string'),
    );
    expect(refusal(decisionBody, 'yes')).toEqual(invalid('request body must be a JSON object'));
  });

  it('names the field of a malformed cancel body', () => {
    expect(parseBody(cancelBody, {})).toEqual({});
    expect(parseBody(cancelBody, { reason: 'stop' })).toEqual({ reason: 'stop' });
    expect(refusal(cancelBody, { reason: 42 })).toEqual(invalid('reason must be a string'));
    expect(refusal(cancelBody, [])).toEqual(invalid('request body must be a JSON object'));
  });

  it('answers a malformed body on each POST route with a 400 naming the field, and starts or changes nothing', async () => {
    const server = await stub({ agents: [agent('known', [])], model: scriptedModel([{ text: 'done' }]) });
    const error = (message: string) => ({
      status: 400,
      body: { error: { code: 'invalid_request', message } },
    });
    expect(
      await http(server, 'POST', '/v1/runs', { agent: 'known', input: 'x', maxTurns: 'two' }),
    ).toMatchObject(error('maxTurns must be an integer from 1 to 9007199254740991'));
    expect(await http(server, 'POST', '/v1/runs', { agent: 'known', input: ['x'] })).toMatchObject(
      error('input must be a string'),
    );
    expect(server.runs.list()).toEqual([]);
    const runId = server.runs.start('known', 'hello');
    await server.runs.waitFor(runId);
    expect(await http(server, 'POST', `/v1/runs/${runId}/cancel`, { reason: false })).toMatchObject(
      error('reason must be a string'),
    );
    expect(
      await http(server, 'POST', `/v1/runs/${runId}/approvals/call_x`, { approved: true, reason: 1 }),
    ).toMatchObject(error('reason must be a string'));
    expect(await http(server, 'POST', `/v1/runs/${runId}/approvals/call_x`, 'true')).toMatchObject(
      error('request body must be a JSON object'),
    );
    expect(server.runs.get(runId)?.status).toBe('completed');
  });

  it('answers a request target that is no URL path with a 404 naming it, and keeps serving', async () => {
    const server = await stub();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(server.port, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString('utf8');
      });
      socket.on('error', reject);
      socket.on('close', () => resolve(text));
      socket.write('GET //[ HTTP/1.1\r\nHost: stub\r\nConnection: close\r\n\r\n');
    });
    expect(answer.split('\r\n')[0]).toBe('HTTP/1.1 404 Not Found');
    expect(answer.slice(answer.indexOf('\r\n\r\n') + 4)).toBe(
      '{"error":{"code":"not_found","message":"no route for //["}}',
    );
    expect(await http(server, 'GET', '/v1/health')).toMatchObject({ status: 200, body: { ok: true } });
  });
});
