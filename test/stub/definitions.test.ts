/**
 * A tool's definitions across a tenant's workers (server-stub/definitions.ts): the digest, the definition the
 * model is shown, and the operator's warning, on sessions with no socket under them.
 */
import { describe, expect, it } from 'vitest';
import {
  argumentsDigestOf,
  differingFields,
  digestOf,
  gateOf,
  ToolDefinitions,
} from '../../server-stub/definitions';
import { Session } from '../../server-stub/session';
import type { ToolDefinition } from '../../src/wire/protocol';
import { captureLogger } from './helpers';

const OLD: ToolDefinition = {
  name: 'refund',
  description: 'Refunds an order.',
  parameters: { type: 'object', properties: { orderId: { type: 'string' } }, required: ['orderId'] },
  needsApproval: false,
};
const NEW: ToolDefinition = {
  ...OLD,
  parameters: {
    type: 'object',
    properties: { orderId: { type: 'string' }, amount: { type: 'number' } },
    required: ['orderId', 'amount'],
  },
  needsApproval: true,
};

/** Sessions of tenants (`tenant`) announcing through one {@link ToolDefinitions}, its warnings kept. */
function fleet() {
  const sessions = new Map<string, Session>();
  const logger = captureLogger();
  const definitions = new ToolDefinitions(sessions, logger);
  let seq = 0;
  return {
    definitions,
    warnings: () => logger.lines.filter((line) => line.level === 'warn'),
    /** A connected session that announces `tools`. */
    join(tools: ToolDefinition[], extra: { tenant?: string; buildId?: string } = {}): Session {
      seq += 1;
      const session = new Session(`s${seq}`, seq, undefined, 1 << 30, () => {});
      session.tenant = extra.tenant ?? 'secret-key-of-acme';
      session.buildId = extra.buildId;
      sessions.set(session.id, session);
      definitions.announce(
        session,
        tools.map((tool) => structuredClone(tool)),
      );
      return session;
    },
    /** The session's socket dropped: it is detached, within its grace period. */
    drop(session: Session): void {
      session.state = 'detached';
    },
    /** The session resumes with the same tools: a new `hello`, new definition objects. */
    resume(session: Session, tools: ToolDefinition[]): void {
      session.state = 'connected';
      definitions.announce(
        session,
        tools.map((tool) => structuredClone(tool)),
      );
    },
    /** The session's grace period ended. */
    expire(session: Session): void {
      session.state = 'expired';
      sessions.delete(session.id);
      definitions.ended(session);
    },
  };
}

describe('digestOf', () => {
  it('is the same for the same definition whatever its key order, at every depth, and whatever its slots', () => {
    const reordered: ToolDefinition = {
      needsApproval: false,
      parameters: { required: ['orderId'], properties: { orderId: { type: 'string' } }, type: 'object' },
      description: 'Refunds an order.',
      name: 'refund',
      slots: 4,
    };
    expect(digestOf(reordered)).toBe(digestOf(structuredClone(OLD)));
    expect(digestOf(NEW)).not.toBe(digestOf(OLD));
    expect(digestOf({ ...OLD, description: 'Refunds an order' })).not.toBe(digestOf(OLD));
  });
});

describe('argumentsDigestOf', () => {
  it('is the same for definitions that differ only in words or approval, and ignores the order of required names', () => {
    const worded: ToolDefinition = { ...OLD, description: 'Refunds an order, in full.', needsApproval: true };
    expect(argumentsDigestOf(worded)).toBe(argumentsDigestOf(OLD));
    expect(argumentsDigestOf(NEW)).not.toBe(argumentsDigestOf(OLD));
    const reordered = structuredClone(NEW);
    (reordered.parameters as { required: string[] }).required.reverse();
    expect(digestOf(reordered)).toBe(digestOf(NEW));
    expect(argumentsDigestOf(reordered)).toBe(argumentsDigestOf(NEW));
  });
});

describe('gateOf', () => {
  it("is the shown definition when it asks approval, else a live worker's that does, else none", () => {
    const { join } = fleet();
    const plain = join([OLD]);
    const gated = join([NEW]);
    expect(gateOf('refund', NEW, [plain])).toBe(NEW);
    expect(gateOf('refund', OLD, [plain, gated])).toEqual(NEW);
    expect(gateOf('refund', OLD, [plain])).toBeUndefined();
  });
});

describe('differingFields', () => {
  it('names the top-level fields whose values differ, sorted, leaving slots out', () => {
    expect(differingFields(OLD, { ...NEW, description: 'Refunds.', slots: 2 })).toEqual([
      'description',
      'needsApproval',
      'parameters',
    ]);
    expect(differingFields(OLD, { ...OLD, approvalReason: 'Money.' })).toEqual(['approvalReason']);
  });
});

describe('ToolDefinitions: the definition the model is shown', () => {
  it('is the newest among the connected sessions, whatever order the sessions are listed in', () => {
    const { definitions, join } = fleet();
    const old = join([OLD]);
    const fresh = join([NEW]);
    expect(definitions.shown('refund', [old, fresh], undefined)).toEqual(NEW);
    expect(definitions.shown('refund', [fresh, old], undefined)).toEqual(NEW);
  });

  it('stays the newest when an old worker resumes, or one more old worker joins', () => {
    const { definitions, join, drop, resume } = fleet();
    const old = join([OLD]);
    const fresh = join([NEW]);
    drop(old);
    resume(old, [OLD]);
    const another = join([OLD]);
    expect(definitions.shown('refund', [old, fresh, another], undefined)).toEqual(NEW);
  });

  it("is a connected session's before a newer one of a session within its grace period", () => {
    const { definitions, join, drop } = fleet();
    const old = join([OLD]);
    const fresh = join([NEW]);
    drop(fresh);
    expect(definitions.shown('refund', [old, fresh], undefined)).toEqual(OLD);
    drop(old);
    expect(definitions.shown('refund', [old, fresh], undefined)).toEqual(NEW);
  });

  it("is the run's own client's when it offers the tool, the one its calls go to", () => {
    const { definitions, join } = fleet();
    const old = join([OLD]);
    const fresh = join([NEW]);
    expect(definitions.shown('refund', [old, fresh], old)).toEqual(OLD);
    expect(definitions.shown('refund', [old, fresh], join([]))).toEqual(NEW);
  });

  it('stays older when its old code comes back while the newer one is live, and is shown once that one is gone', () => {
    const { definitions, join, expire } = fleet();
    const old = join([OLD]);
    const fresh = join([NEW]);
    // A worker of the old code restarts mid-deploy (a crash, a rescheduled pod): its session is new, not its code.
    expire(old);
    const back = join([OLD]);
    expect(definitions.shown('refund', [fresh, back], undefined)).toEqual(NEW);
    // A rollback ends when the new workers are gone.
    expire(fresh);
    expect(definitions.shown('refund', [back], undefined)).toEqual(OLD);
    // Then the new code again is newest again only as it was: it first appeared after the old one.
    expect(definitions.shown('refund', [back, join([NEW])], undefined)).toEqual(NEW);
  });
});

describe('ToolDefinitions: the warning when workers disagree', () => {
  it('logs one line naming the tool, the two sessions and the fields that differ, never a value or the tenant', () => {
    const { join, warnings } = fleet();
    join([OLD]);
    join([NEW, { ...OLD, name: 'lookup' }]);
    expect(warnings()).toEqual([
      {
        level: 'warn',
        message:
          'workers disagree on tool refund (needsApproval, parameters): the model is shown the newest definition; its calls wait for the workers that take its arguments; its calls are held for approval while any worker asks for it',
        fields: {
          toolName: 'refund',
          sessionId: 's2',
          otherSessionId: 's1',
          fields: ['needsApproval', 'parameters'],
        },
      },
    ]);
    expect(JSON.stringify(warnings())).not.toContain('secret-key-of-acme');
  });

  it('logs it once: not again at a resume, nor for another worker with one of the two definitions', () => {
    const { join, drop, resume, warnings } = fleet();
    const old = join([OLD]);
    const fresh = join([NEW]);
    drop(old);
    resume(old, [OLD]);
    drop(fresh);
    resume(fresh, [NEW]);
    join([OLD]);
    join([NEW]);
    expect(warnings()).toHaveLength(1);
  });

  it('logs a new disagreement: a third definition, or the same two again after they agreed', () => {
    const { join, expire, warnings } = fleet();
    const old = join([OLD]);
    join([NEW]);
    join([{ ...NEW, description: 'Refunds an order, once approved.' }]);
    expect(warnings().map((line) => line.fields.fields)).toEqual([
      ['needsApproval', 'parameters'],
      ['description', 'needsApproval', 'parameters'],
    ]);
    expire(old);
    join([OLD]);
    // One line for the tool at that announcement, naming the first session it disagrees with.
    expect(warnings().map((line) => [line.fields.sessionId, line.fields.otherSessionId])).toEqual([
      ['s2', 's1'],
      ['s3', 's1'],
      ['s4', 's2'],
    ]);
  });

  it('logs nothing for sessions of other builds or other tenants, nor for one within its grace period', () => {
    const { join, drop, warnings } = fleet();
    drop(join([OLD]));
    join([NEW]);
    join([OLD], { buildId: 'b1' });
    join([OLD], { tenant: 'globex' });
    expect(warnings()).toEqual([]);
    join([NEW], { buildId: 'b1' });
    expect(warnings().map((line) => line.fields)).toEqual([
      expect.objectContaining({ sessionId: 's5', otherSessionId: 's3', buildId: 'b1' }),
    ]);
  });
});
