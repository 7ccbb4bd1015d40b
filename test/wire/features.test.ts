/**
 * The feature names of docs/protocol/index.md (src/wire/protocol.ts): one feature per addition, and the retired names
 * an older peer may still send, read as the feature that replaced them.
 */
import { describe, expect, it } from 'vitest';
import { FEATURE_ALIASES, FEATURES, featuresOf } from '../../src/wire/protocol';

describe('features', () => {
  it('has one feature for where a call comes from (call_context), not a second one for its agent', () => {
    expect(FEATURES).toContain('call_context');
    expect(FEATURES).not.toContain('agent_name');
    expect(FEATURE_ALIASES).toEqual({ agent_name: 'call_context' });
  });

  it('reads the retired agent_name as call_context, and ignores names it does not know', () => {
    expect([...featuresOf(['agent_name', 'steps', 'telepathy', 7])]).toEqual(['call_context', 'steps']);
    expect([...featuresOf(['call_context', 'agent_name'])]).toEqual(['call_context']);
    expect([...featuresOf(undefined)]).toEqual([]);
  });
});
