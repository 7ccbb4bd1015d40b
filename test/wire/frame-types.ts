/**
 * The frame types of the protocol, written out for tests (docs/protocol/frames-service.md and frames-client.md):
 * the lists are checked against the types the protocol infers (`ServiceFrame['type']`, `ClientFrame['type']`), so a
 * frame added to or taken from either side fails to compile here until the list says so.
 */
import type { ClientFrame, ServiceFrame } from '../../src/wire/protocol';

/** Every element of `U` is in the list, and nothing else is: a compile error names what is missing. */
type Exactly<List extends readonly string[], U extends string> = [Exclude<U, List[number]>] extends [never]
  ? List
  : { missing: Exclude<U, List[number]> };

/** The frames a service sends. */
export const SERVICE_FRAME_TYPES = [
  'welcome',
  'tool_call',
  'cancel',
  'hand_back',
  'ack',
  'run_started',
  'run_event',
  'run_result',
  'answer',
  'approval_applied',
  'ping',
  'pong',
  'error',
] as const satisfies readonly ServiceFrame['type'][];
SERVICE_FRAME_TYPES satisfies Exactly<typeof SERVICE_FRAME_TYPES, ServiceFrame['type']>;

/** The frames a client sends. */
export const CLIENT_FRAME_TYPES = [
  'hello',
  'tool_result',
  'tool_progress',
  'tool_preliminary',
  'tool_event',
  'approval_request',
  'approval',
  'tools_update',
  'run_start',
  'run_cancel',
  'question',
  'question_cancel',
  'step_result',
  'lease',
  'key_waits',
  'approval_waits',
  'ping',
  'pong',
  'error',
] as const satisfies readonly ClientFrame['type'][];
CLIENT_FRAME_TYPES satisfies Exactly<typeof CLIENT_FRAME_TYPES, ClientFrame['type']>;
