/**
 * Subject (3), a peer: a Socket.IO client whose `tool_call` handler validates with the same zod schema, adds,
 * and answers through the acknowledgement callback (the service side uses `emitWithAck`). WebSocket transport
 * only, no long-polling upgrade.
 *
 * @module
 */
import { io } from 'socket.io-client';
import { z } from 'zod';
import { argument, exitWithParent, Holds, runHarness } from './harness';

exitWithParent();
const holds = new Holds();
const params = z.object({ a: z.number(), b: z.number() });

interface Call {
  callId: string;
  toolName: string;
  arguments: unknown;
}
type Ack = (result: { callId: string; status: string; output: string }) => void;

const socket = io(argument('url')!, { transports: ['websocket'], reconnection: false });
socket.on('tool_call', (call: Call, ack: Ack) => {
  if (call.toolName === 'hold') {
    void holds.wait().then(() => ack({ callId: call.callId, status: 'ok', output: 'released' }));
    return;
  }
  const parsed = params.safeParse(call.arguments);
  if (parsed.success)
    ack({ callId: call.callId, status: 'ok', output: String(parsed.data.a + parsed.data.b) });
  else ack({ callId: call.callId, status: 'invalid_arguments', output: parsed.error.message });
});
socket.once('connect', () => runHarness(holds, () => void socket.close()));
