/**
 * A predicate's approval reason is cut to 1,000 characters once redacted (docs/protocol/approvals.md,
 * docs/guide/secrets.md "Redaction comes before any cut"): no start of a secret survives at the end of the cut.
 */
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../src/call/types';
import { Client, tool } from '../../src/index';
import { MAX_APPROVAL_REASON_CHARS } from '../../src/wire/protocol';
import { FAKE_URL, fakeWebSocket, useFakeService } from './fake-service';

const { service, clients } = useFakeService();
const KEY = 'sk-SECRETKEY-1234567890';

const gated = (reason: string) =>
  tool({
    name: 'gated',
    description: 'Needs approval for a long reason.',
    parameters: { type: 'object', properties: { pin: { type: 'string' } } } as const,
    sensitiveFieldNames: ['pin'],
    needsApproval: () => ({ required: true, reason }),
    execute: () => 'ran',
  });

describe("a predicate's long approval reason", () => {
  const cases = [
    ['the API key', `${'x'.repeat(990)}${KEY}`],
    ['a sensitive field', `${'x'.repeat(994)}98765-4321`],
  ] as const;

  it.each(cases)('reaches the approver and the service without the start of %s', async (_what, reason) => {
    const requests: ApprovalRequest[] = [];
    const local = new Client({
      url: FAKE_URL,
      WebSocket: fakeWebSocket(),
      apiKey: KEY,
      tools: [gated(reason)],
      onApproval: (request) => {
        requests.push(request);
        return false;
      },
      reconnect: false,
    });
    const held = new Client({
      url: FAKE_URL,
      WebSocket: fakeWebSocket(),
      apiKey: KEY,
      tools: [gated(reason)],
      reconnect: false,
    });
    clients.push(local, held);
    const call = { type: 'tool_call', runId: 'r1', toolName: 'gated', arguments: { pin: '98765-4321' } };
    const first = await service.connect(local);
    const answered = first.next('tool_result');
    first.send({ ...call, callId: 'c1' });
    await answered;
    const second = await service.connect(held);
    const asked = second.next('approval_request');
    second.send({ ...call, callId: 'c2' });
    const frame = await asked;
    for (const text of [requests[0]?.reason, frame.reason]) {
      expect(text).toMatch(/^x+/);
      expect(text?.length).toBeLessThanOrEqual(MAX_APPROVAL_REASON_CHARS);
      for (const piece of ['sk-', 'SECRET', '98765']) expect(text).not.toContain(piece);
    }
  });
});
