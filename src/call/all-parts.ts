/**
 * Every optional part of a call (./parts.ts) registered at once: what the Node entry does (src/node.ts), so that
 * Node, Bun and Deno never wait for one. A function rather than a module's side effect: a bundler keeps a call.
 *
 * @module
 */
import * as widget from '../tool/widget';
import { decideApproval, lazyFrozenCopy } from './approval';
import * as concurrency from './concurrency';
import { registerCallParts } from './parts';
import { passGate } from './policies';
import * as questions from './questions';
import * as redaction from './redaction';
import * as retry from './retry';
import * as steps from './steps';

/** Registers every part of ./parts.ts. */
export function registerAllCallParts(): void {
  registerCallParts({
    gate: { decideApproval, lazyFrozenCopy, passGate },
    retry,
    concurrency,
    steps,
    questions,
    widget,
    redaction,
  });
}
