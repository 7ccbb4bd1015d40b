/**
 * The browser build's src/call/gate.ts (swapped in by browser-build.ts): a call of a tool without
 * `allowedAgentNames`, in a client without `policies`, passes the gate here; any other loads the real gate
 * (a chunk of its own) first.
 *
 * @module
 */
import { lazy } from '../browser/lazy';
import { withModule } from './call-module';
import { gateIsOpen } from './fast-paths';
import type { GateOutcome } from './gate';
import type { CallState } from './types';

export type { GateOutcome } from './gate';

const real = lazy('the gate (allowedAgentNames, policies)', () => import('./gate'));

/** See src/call/gate.ts. */
export function passGate(call: CallState, view: () => unknown, done: (outcome: GateOutcome) => void): void {
  if (gateIsOpen(call)) {
    done({ go: true, approvalReason: undefined, redact: [] });
    return;
  }
  withModule(real, call, (module) => module.passGate(call, view, done));
}
