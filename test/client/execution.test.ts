import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import {
  type CallState,
  canMove,
  Execution,
  extrasOf,
  READ_LATER,
  type ToolCallFrame,
} from '../../src/client/execution';

const STATES: CallState[] = ['queued', 'running', 'parked', 'resuming', 'finished'];

describe('Execution state', () => {
  it('allows exactly the transitions of its table', () => {
    const allowed = STATES.flatMap((from) =>
      STATES.filter((to) => canMove(from, to)).map((to) => `${from} → ${to}`),
    );
    expect(allowed).toEqual([
      'queued → running',
      'queued → parked',
      'queued → finished',
      'running → parked',
      'running → finished',
      'parked → running',
      'parked → resuming',
      'parked → finished',
      'resuming → running',
      'resuming → parked',
      'resuming → finished',
    ]);
  });

  it('refuses an illegal transition and stays where it is', () => {
    const execution = new Execution(
      { type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 't', arguments: {} },
      { finished() {} },
    );
    expect(execution.state).toBe('queued');
    expect(execution.moveTo('resuming')).toBeUndefined();
    expect(execution.state).toBe('queued');
    expect(execution.moveTo('running')).toBe('queued');
    expect(execution.moveTo('finished')).toBe('running');
    expect(execution.moveTo('running')).toBeUndefined();
    expect(execution.state).toBe('finished');
  });
});

describe('Execution frame', () => {
  const owner = { finished() {} };
  const base: ToolCallFrame = {
    type: 'tool_call',
    callId: 'c1',
    runId: 'r1',
    toolName: 't',
    arguments: { a: 1 },
  };
  /** A value of the right kind for each field read after arrival. */
  const LATER_VALUES: Partial<Record<keyof ToolCallFrame, unknown>> = {
    depth: 1,
    approved: false,
    reason: 'no',
    argumentsEdited: true,
    sessionId: 's1',
    agentName: 'Support',
    agentRevision: 'Support@0123456789ab',
    tenantId: 't_acme',
    userId: 'user_42',
    steps: { fetch: 1 },
  };

  it('keeps its ids, tool and arguments, and nothing else when the frame carries nothing read later', () => {
    const execution = new Execution({ ...base, deadlineMs: 30_000, depth: 0, acks: ['c0'] }, owner);
    expect([execution.callId, execution.runId, execution.toolName, execution.arguments]).toEqual([
      'c1',
      'r1',
      't',
      { a: 1 },
    ]);
    expect(execution.extras).toBeUndefined();
    expect(execution.frame).toStrictEqual(base);
  });

  it('keeps each field read later as its own value, never the frame', () => {
    const later = Object.entries(READ_LATER)
      .filter(([, read]) => read)
      .map(([key]) => key);
    expect(later.sort()).toEqual(Object.keys(LATER_VALUES).sort());
    for (const key of later) {
      const value = LATER_VALUES[key as keyof ToolCallFrame];
      const frame = { ...base, deadlineMs: 5_000, [key]: value } as ToolCallFrame;
      const execution = new Execution(frame, { finished() {} });
      expect(execution.extras, key).toStrictEqual({ [key]: value });
      expect(execution.extras, key).not.toBe(frame);
      expect(execution.frame, key).toStrictEqual({ ...base, [key]: value });
    }
    const all = { ...base, ...LATER_VALUES } as ToolCallFrame;
    expect(extrasOf(all)).toStrictEqual(LATER_VALUES);
    expect(new Execution(all, { finished() {} }).frame).toStrictEqual(all);
  });

  it('shares one copy among the calls of one owner whose frames carry the same values', () => {
    const shared = { finished() {} };
    const context = { agentName: 'Support', sessionId: 's1', depth: 0 };
    const first = new Execution({ ...base, ...context, callId: 'c1' }, shared);
    const second = new Execution({ ...base, ...context, callId: 'c2' }, shared);
    expect(first.extras).toStrictEqual({ agentName: 'Support', sessionId: 's1' });
    expect(second.extras).toBe(first.extras);
    for (const key of Object.keys(LATER_VALUES)) {
      const other = new Execution(
        {
          ...base,
          ...context,
          callId: 'c3',
          [key]: LATER_VALUES[key as keyof ToolCallFrame],
        } as ToolCallFrame,
        shared,
      );
      expect(other.extras, key).not.toBe(first.extras);
      expect(new Execution({ ...base, ...context, callId: 'c4' }, shared).extras, key).toStrictEqual(
        first.extras,
      );
    }
    expect(new Execution({ ...base, callId: 'c5' }, shared).extras).toBeUndefined();
  });

  it('keeps no trace context: the traced calls of one run share one copy, each with a traceparent of its own', () => {
    const shared = { finished() {} };
    const context = { agentName: 'Support', sessionId: 's1' };
    const traced = (callId: string, span: string) =>
      new Execution(
        {
          ...base,
          ...context,
          callId,
          traceparent: `00-0af7651916cd43dd8448eb211c80319c-${span}-01`,
          tracestate: 'a=b',
        },
        shared,
      );
    const first = traced('c1', 'b7ad6b7169203331');
    const second = traced('c2', 'b7ad6b7169203332');
    expect(first.extras).toStrictEqual(context);
    expect(second.extras).toBe(first.extras);
    expect(second.frame).toStrictEqual({ ...base, ...context, callId: 'c2' });
  });

  it('keeps its extras once it has rare state of its own (a decision, a redaction)', () => {
    const execution = new Execution({ ...base, agentName: 'Support', depth: 2 }, owner);
    const extras = execution.extras;
    execution.approvalReason = 'needs a human';
    execution.resume = () => {};
    expect(execution.extras).toBe(extras);
    expect(execution.approvalReason).toBe('needs a human');
    expect(execution.frame).toStrictEqual({ ...base, agentName: 'Support', depth: 2 });
    const plain = new Execution(base, owner);
    plain.approvalReason = 'why';
    expect(plain.extras).toBeUndefined();
    expect(plain.approvalReason).toBe('why');
  });
});

describe('the classes a call is built on', () => {
  // `Execution` extends `CallRun` extends `Cancellation`: Node 20's V8 (11.3) does not inline a `super()` into a
  // class with instance fields or private instance methods, and every call then pays a generic construct per such
  // class (src/call/pipeline.ts `CallRun`).
  const CHAIN = [
    ['src/call/signal.ts', 'Cancellation'],
    ['src/call/pipeline.ts', 'CallRun'],
    ['src/client/execution.ts', 'Execution'],
  ] as const;

  it.each(CHAIN)('%s: %s declares no instance field and no private instance method', (file, name) => {
    const path = fileURLToPath(new URL(`../../${file}`, import.meta.url));
    const source = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest);
    const found = source.statements.find(
      (node): node is ts.ClassDeclaration => ts.isClassDeclaration(node) && node.name?.text === name,
    );
    expect(found, name).toBeDefined();
    const isStatic = (member: ts.ClassElement) =>
      ts.canHaveModifiers(member) &&
      (ts.getModifiers(member) ?? []).some((m) => m.kind === ts.SyntaxKind.StaticKeyword);
    const declaresOnly = (member: ts.PropertyDeclaration) =>
      (ts.getModifiers(member) ?? []).some(
        (m) => m.kind === ts.SyntaxKind.DeclareKeyword || m.kind === ts.SyntaxKind.AbstractKeyword,
      );
    const offending = (found?.members ?? [])
      .filter((member) => !isStatic(member))
      .filter(
        (member) =>
          (ts.isPropertyDeclaration(member) && !declaresOnly(member)) ||
          ((ts.isMethodDeclaration(member) || ts.isGetAccessor(member) || ts.isSetAccessor(member)) &&
            member.name !== undefined &&
            ts.isPrivateIdentifier(member.name)),
      )
      .map((member) => member.name?.getText(source));
    expect(offending).toEqual([]);
  });
});
