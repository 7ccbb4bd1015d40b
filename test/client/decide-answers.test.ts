/**
 * `client.decide()` over a bare `ws` service (feature `decisions`, docs/protocol/decisions.md): every answer the
 * service
 * may give ends the decision, including an answer the client cannot read (docs/protocol/errors.md: the waiter a
 * refused frame names
 * is ended) and an `error` with a code the client does not know (kept as the service's).
 */
import { describe, expect, it } from 'vitest';
import { ApprovalError } from '../../src/index';
import { client, onCleanup, until } from '../fault/harness';
import { startRawService } from '../fault/raw-service';

async function deciding(
  answer: (approval: { requestId: string; callId: string }) => Record<string, unknown>,
) {
  const service = await startRawService({ welcome: { features: ['decisions'] } });
  onCleanup(() => service.close());
  const worker = client(service.url, { tools: [], reconnect: { initialDelayMs: 1, maxDelayMs: 5 } });
  worker.on('error', () => {});
  await worker.connect();
  const decided = worker.decide('c1', true);
  decided.catch(() => {});
  await until(() => service.frames.filter((frame) => frame.type === 'approval').length, 1);
  const approval = service.frames.find((frame) => frame.type === 'approval') as {
    requestId: string;
    callId: string;
  };
  service.socket().send(JSON.stringify(answer(approval)));
  return { decided, service };
}

describe('client.decide() ends on every answer of the service', () => {
  it.each([
    ['approved is not a boolean', (a: { requestId: string; callId: string }) => ({ ...a, approved: 'yes' })],
    ['no callId', (a: { requestId: string; callId: string }) => ({ requestId: a.requestId, approved: true })],
  ])(
    'an approval_applied that cannot be read (%s) is refused and rejects invalid_frame',
    async (_name, make) => {
      const { decided, service } = await deciding((a) => ({ ...make(a), type: 'approval_applied' }));
      await expect(decided).rejects.toBeInstanceOf(ApprovalError);
      await expect(decided).rejects.toMatchObject({
        code: 'invalid_frame',
        message: expect.stringContaining('could not be read'),
      });
      await until(() => service.frames.filter((frame) => frame.type === 'error').length, 1);
      expect(service.frames.find((frame) => frame.type === 'error')).toMatchObject({ code: 'invalid_frame' });
    },
  );

  it('an error that cannot be read (no message) naming the request rejects invalid_frame', async () => {
    const { decided } = await deciding((a) => ({
      type: 'error',
      code: 'not_allowed',
      requestId: a.requestId,
    }));
    await expect(decided).rejects.toMatchObject({ name: 'ApprovalError', code: 'invalid_frame' });
  });

  it.each(['internal', 'quota_exceeded'])(
    "an error %s naming the request keeps the service's code and quotes it",
    async (code) => {
      const { decided } = await deciding((a) => ({
        type: 'error',
        code,
        message: 'try later',
        requestId: a.requestId,
      }));
      await expect(decided).rejects.toMatchObject({
        name: 'ApprovalError',
        code,
        message: `decide(): the service refused the decision with ${code}: try later`,
      });
    },
  );

  it("not_allowed is not_pending and unknown_call is unknown_call, with the service's words", async () => {
    for (const [code, expected] of [
      ['not_allowed', 'not_pending'],
      ['unknown_call', 'unknown_call'],
    ] as const) {
      const { decided } = await deciding((a) => ({
        type: 'error',
        code,
        message: 'no',
        requestId: a.requestId,
      }));
      await expect(decided).rejects.toMatchObject({ code: expected, message: 'decide(): no' });
    }
  });
});
