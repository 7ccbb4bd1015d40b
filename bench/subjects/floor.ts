/**
 * Subject (1), the floor: a bare `ws` client speaking protocol v1 with nothing but `JSON.parse`, an addition
 * and `JSON.stringify`. No validation, no outbox, no concurrency limit: the least a client can do.
 *
 * @module
 */
import { WebSocket } from 'ws';
import { argument, exitWithParent, Holds, runHarness } from './harness';

exitWithParent();
const holds = new Holds();
const socket = new WebSocket(argument('url')!, 'toolwire.v1', {
  headers: { Authorization: 'Bearer bench' },
  perMessageDeflate: false,
});

interface Call {
  type: string;
  callId: string;
  toolName: string;
  arguments: { a: number; b: number };
}

const reply = (callId: string, output: string) =>
  socket.send(JSON.stringify({ type: 'tool_result', callId, status: 'ok', output }));

socket.on('open', () => {
  socket.send(
    JSON.stringify({ type: 'hello', protocol: 1, sdk: { name: 'floor', version: '0' }, tools: [] }),
  );
});
socket.on('message', (data: Buffer) => {
  const frame = JSON.parse(data.toString()) as Call;
  if (frame.type === 'tool_call') {
    if (frame.toolName === 'hold') {
      const { callId } = frame;
      void holds.wait().then(() => reply(callId, 'released'));
    } else reply(frame.callId, String(frame.arguments.a + frame.arguments.b));
  } else if (frame.type === 'welcome') {
    runHarness(holds, () => socket.close());
  } else if (frame.type === 'ping') {
    socket.send('{"type":"pong"}');
  }
  // `ack` needs nothing: the floor keeps no outbox.
});
