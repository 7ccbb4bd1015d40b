/**
 * `SlotlessWaits` (src/client/slotless-waits.ts): the frames that tell the service which calls wait without a slot,
 * for each kind (`key_waits`, `approval_waits`): one per task, split to fit the frame limit and the ids a list holds.
 */
import { describe, expect, it } from 'vitest';
import { type SlotlessWait, SlotlessWaits } from '../../src/client/slotless-waits';
import { type ClientFrame, MAX_APPROVAL_WAIT_IDS, MAX_KEY_WAIT_IDS } from '../../src/wire/protocol';
import { nextTask } from './call-runner-harness';

describe.each([
  ['key_waits', MAX_KEY_WAIT_IDS],
  ['approval_waits', MAX_APPROVAL_WAIT_IDS],
] as const)('SlotlessWaits of %s', (type: SlotlessWait, maxIds) => {
  function setup(maxPayloadBytes = 1_048_576) {
    const sent: ClientFrame[] = [];
    const waits = new SlotlessWaits(
      {
        send: (frame) => {
          sent.push(frame);
          return true;
        },
        maxPayloadBytes,
      },
      type,
    );
    waits.welcomed(true, false);
    return { waits, sent };
  }

  it('names nothing for a call that waits and goes on within one task', async () => {
    const { waits, sent } = setup();
    waits.waiting('c1');
    waits.running('c1');
    waits.running('c2'); // never named waiting
    await nextTask();
    expect(sent).toEqual([]);
  });

  it('names the calls of one task in one frame of its type', async () => {
    const { waits, sent } = setup();
    waits.waiting('c1');
    waits.waiting('c2');
    await nextTask();
    waits.running('c1');
    waits.waiting('c3');
    await nextTask();
    expect(sent).toEqual([
      { type, waiting: ['c1', 'c2'] },
      { type, waiting: ['c3'], running: ['c1'] },
    ]);
  });

  it('splits the ids into frames that fit the frame limit', async () => {
    const { waits, sent } = setup(100);
    const ids = Array.from({ length: 12 }, (_, n) => `call_${String(n).padStart(3, '0')}`);
    for (const id of ids) waits.waiting(id);
    await nextTask();
    expect(sent.length).toBeGreaterThan(1);
    for (const frame of sent) expect(JSON.stringify(frame).length).toBeLessThanOrEqual(100);
    expect(sent.flatMap((frame) => (frame as { waiting?: string[] }).waiting ?? [])).toEqual(ids);
  });

  it(`puts at most ${maxIds.toLocaleString('en-US')} ids in a list`, async () => {
    const { waits, sent } = setup();
    for (let n = 0; n <= maxIds; n++) waits.waiting(`c${n}`);
    await nextTask();
    expect(sent.map((frame) => (frame as { waiting: string[] }).waiting.length)).toEqual([maxIds, 1]);
  });

  it('names nothing while the feature is off', async () => {
    const { waits, sent } = setup();
    waits.welcomed(false, false);
    waits.waiting('c1');
    await nextTask();
    expect(sent).toEqual([]);
  });
});
