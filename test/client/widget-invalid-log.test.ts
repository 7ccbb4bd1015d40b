/**
 * An invalid widget of a client's call is reported locally (DESIGN, "event + log naming the path"): a `warn` line
 * in the client's logger, redacted, naming the tool, the call and the path, whether or not anyone listens to the
 * `widget_invalid` event; the event still fires for those who do.
 */
import { describe, expect, it } from 'vitest';
import { Client, tool } from '../../src/index';
import { recordingLogger } from '../support/recording-logger';
import { FAKE_URL, fakeWebSocket, useFakeService } from './fake-service';

const { service, clients } = useFakeService();
const KEY = 'sk-widget-log-5150';

const showsCard = tool({
  name: 'show_card',
  description: 'Shows a card.',
  execute: () => ({ d: 1, widget: { type: 'Card', title: KEY, children: [{ type: 'Badge', label: 7 }] } }),
});

async function resultOf(listen: boolean) {
  const { logger, lines } = recordingLogger();
  const client = new Client({
    url: FAKE_URL,
    WebSocket: fakeWebSocket(),
    apiKey: KEY,
    tools: [showsCard],
    logger,
    reconnect: false,
  });
  clients.push(client);
  const events: unknown[] = [];
  if (listen) client.on('widget_invalid', (info) => events.push(info));
  const connection = await service.connect(client);
  const answered = connection.next('tool_result');
  connection.send({ type: 'tool_call', callId: 'c1', runId: 'r1', toolName: 'show_card', arguments: {} });
  const result = await answered;
  return { result, events, warnings: lines.filter((line) => line.level === 'warn') };
}

const LINE = {
  level: 'warn',
  object: { toolName: 'show_card', callId: 'c1', path: 'children[0].label' },
  message: 'dropped the invalid widget of show_card (call c1): children[0].label: expected string',
};

describe('an invalid widget of a call', () => {
  it('is logged at warn, naming tool, call and path, when nobody listens to widget_invalid', async () => {
    const { result, warnings } = await resultOf(false);
    expect(result).toMatchObject({ callId: 'c1', status: 'ok', output: '{"d":1}' });
    expect(result).not.toHaveProperty('widget');
    expect(warnings).toEqual([LINE]);
  });

  it('is logged and emitted when someone listens', async () => {
    const { events, warnings } = await resultOf(true);
    expect(warnings).toEqual([LINE]);
    expect(events).toEqual([
      {
        toolName: 'show_card',
        callId: 'c1',
        path: 'children[0].label',
        message: 'expected string',
      },
    ]);
  });
});
