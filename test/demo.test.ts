import { delay, HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../examples/demo/main';

// biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI colours from the transcript.
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

async function demo(args: string[]): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const code = await main(['--db', ':memory:', '--yes', ...args], (line) => lines.push(plain(line)));
  return { code, out: lines.join('\n') };
}

describe('the demo (npm start)', () => {
  it('runs the whole conversation against the embedded stub and exits 0', async () => {
    const { code, out } = await demo([]);
    expect(code).toBe(0);
    const expected = [
      "model: scripted (the demo's script, not a language model: it plays the same turns whatever is asked)",
      'call   search_orders {"email":"ada@example.com"}',
      '✓ ok',
      '{"count":2,"truncated":false,"orders":[{"id":"ord_7002","status":"open"',
      '✗ invalid_arguments',
      'Invalid arguments for show_order: id: expected a string matching /^ord_\\d+$/, received "order 7001"',
      'call   show_order {"id":"ord_7001"}',
      '╭─ Order ord_7001',
      ' shipped ',
      'Mechanical keyboard',
      '✗ error',
      'The charge failed. Ask the user to update their card.',
      'approval issue_refund {"orderId":"ord_7001","reason":"Wrong keyboard delivered"} → approved (--yes)',
      '{"refundId":"re_ord_7001","amount":"$427.00","status":"refunded"}',
      'call   customer_stats {"email":"ada@example.com"}',
      'Ada has placed 2 orders totalling $486.00; her most bought product is 27" monitor.',
      'answer [scripted] You have 2 orders with us; order ord_7001 is shipped ($427.00).',
      '7 model turns · 6 tool calls (2 not ok)',
    ];
    let from = 0;
    for (const piece of expected) {
      const at = out.indexOf(piece, from);
      expect(at, `missing (in order): ${piece}`).toBeGreaterThanOrEqual(0);
      from = at;
    }
  });

  it('keeps its database between runs and never reports a second refund of the same order as new', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const db = `${mkdtempSync(`${tmpdir()}/toolwire-demo-`)}/demo.db`;
    const lines: string[] = [];
    const write = (line: string) => lines.push(plain(line));
    expect(await main(['--db', db, '--yes'], write)).toBe(0);
    expect(lines.join('\n')).toContain('I refunded $427.00 (refund re_ord_7001).');
    lines.length = 0;
    expect(await main(['--db', db, '--yes'], write)).toBe(0);
    const second = lines.join('\n');
    expect(second).toContain('order ord_7001 is refunded ($427.00)');
    expect(second).toContain(
      'That order was already refunded earlier (refund re_ord_7001), so nothing was charged back twice.',
    );
  });

  it('runs the long export with --export: the question answered here, its progress, past a 500 ms deadline', async () => {
    const { code, out } = await demo(['--export']);
    expect(code).toBe(0);
    const expected = [
      "user   Export today's orders to the warehouse.",
      'call   export_orders {}',
      'question Which warehouse should the export go to? [Berlin, Lyon, Oslo] → Berlin (--yes)',
      'progress 0/513 batch 1 of 11 to Berlin',
      'event batch.exported {"batch":1,"orders":50,"lastId":"ord_1059"}',
      'event batch.exported {"batch":11,"orders":13,"lastId":"ord_7002"}',
      'progress 513/513 all 513 orders are in Berlin',
      '✓ ok',
      '{"warehouse":"Berlin","orders":513,"batches":11}',
      'answer [scripted] Exported 513 orders to Berlin in 11 batches.',
      '2 model turns · 1 tool call (0 not ok)',
    ];
    let from = 0;
    for (const piece of expected) {
      const at = out.indexOf(piece, from);
      expect(at, `missing (in order): ${piece}`).toBeGreaterThanOrEqual(0);
      from = at;
    }
    // The call took longer than the stub's 500 ms per-call deadline, and still ended ok.
    const took = Number(/✓ ok (\d+)ms/.exec(out)?.[1]);
    expect(took).toBeGreaterThan(500);
  });

  it('prints the transcript as JSON with --json', async () => {
    const { code, out } = await demo(['--json']);
    expect(code).toBe(0);
    const parsed = JSON.parse(out) as {
      run: { status: string; toolCalls: { toolName: string; status: string }[] };
      nested: unknown[];
    };
    expect(parsed.run.status).toBe('completed');
    expect(parsed.run.toolCalls.map((call) => `${call.toolName}:${call.status}`)).toEqual([
      'search_orders:ok',
      'show_order:invalid_arguments',
      'show_order:ok',
      'charge_card:error',
      'issue_refund:ok',
      'ask_researcher:ok',
    ]);
    expect(parsed.nested).toHaveLength(1);
  });
});

describe('the demo with --model openai', () => {
  const requests: unknown[] = [];
  const server = setupServer(
    http.post('https://llm.test/v1/chat/completions', async ({ request }) => {
      const body = (await request.json()) as { messages: { role: string }[] };
      requests.push(body);
      const answered = body.messages.some((message) => message.role === 'tool');
      return HttpResponse.json({
        choices: [
          {
            message: answered
              ? { role: 'assistant', content: 'Ada has two orders.' }
              : {
                  role: 'assistant',
                  content: null,
                  tool_calls: [
                    {
                      id: 'c1',
                      type: 'function',
                      function: { name: 'search_orders', arguments: '{"email":"ada@example.com"}' },
                    },
                  ],
                },
          },
        ],
      });
    }),
  );
  beforeAll(() => {
    server.listen({ onUnhandledRequest: 'bypass' });
    process.env.OPENAI_BASE_URL = 'https://llm.test/v1';
    process.env.OPENAI_API_KEY = 'sk-test';
    process.env.OPENAI_MODEL = 'test-model';
  });
  afterAll(() => {
    server.close();
    delete process.env.OPENAI_BASE_URL;
    delete process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_MODEL;
  });

  it('drives the stub with an OpenAI-compatible model', async () => {
    const { code, out } = await demo(['--model', 'openai']);
    expect(code).toBe(0);
    expect(out).toContain('model: test-model at https://llm.test/v1');
    expect(out).toContain('call   search_orders {"email":"ada@example.com"}');
    expect(out).toContain('answer Ada has two orders.');
    expect(requests).toHaveLength(2);
  });

  it('refuses --model with a remote TOOLWIRE_URL: the model lives in the other process', async () => {
    process.env.TOOLWIRE_URL = 'ws://127.0.0.1:9';
    try {
      await expect(demo(['--model', 'openai'])).rejects.toThrow(
        '--model openai picks the model of the embedded stub, but with TOOLWIRE_URL the model lives in the other process (the service at ws://127.0.0.1:9), not in this one',
      );
      await expect(demo(['--model', 'scripted'])).rejects.toThrow('the model lives in the other process');
    } finally {
      delete process.env.TOOLWIRE_URL;
    }
  });
});

describe('the demo with --model openai against a streaming mock that fails once and stalls once', () => {
  const encoder = new TextEncoder();
  let attempts = 0;
  let release!: () => void;
  const firstPieceShown = new Promise<void>((resolve) => {
    release = resolve;
  });
  /** A streamed chat completion: each delta a chunk, the rest held back until `gate` (when given) resolves. */
  const stream = (deltas: Array<Record<string, unknown>>, gate?: Promise<void>) =>
    new HttpResponse(
      new ReadableStream<Uint8Array>({
        async start(controller) {
          for (const [index, delta] of deltas.entries()) {
            if (gate && index === 1) await gate;
            const chunk = { choices: [{ index: 0, delta, finish_reason: null }] };
            controller.enqueue(encoder.encode(`data: ${JSON.stringify(chunk)}\n\n`));
          }
          controller.enqueue(encoder.encode('data: [DONE]\n\n'));
          controller.close();
        },
      }),
      { headers: { 'content-type': 'text/event-stream' } },
    );
  const server = setupServer(
    http.post('http://127.0.0.1:11434/v1/chat/completions', async ({ request }) => {
      const body = (await request.json()) as { messages: { role: string }[]; stream?: boolean };
      attempts += 1;
      // The first attempt fails, the second is slower than OPENAI_TIMEOUT_MS: the package retries both.
      if (attempts === 1) return HttpResponse.json({ error: { message: 'warming up' } }, { status: 500 });
      if (attempts === 2) await delay('infinite');
      if (!body.messages.some((message) => message.role === 'tool')) {
        return stream([
          {
            role: 'assistant',
            tool_calls: [
              {
                index: 0,
                id: 'c1',
                type: 'function',
                function: { name: 'search_orders', arguments: '{"email":"ada@example.com"}' },
              },
            ],
          },
        ]);
      }
      return stream([{ content: 'Ada has ' }, { content: 'two ' }, { content: 'orders.' }], firstPieceShown);
    }),
  );
  beforeAll(() => {
    server.listen({ onUnhandledRequest: 'bypass' });
    process.env.OPENAI_BASE_URL = 'http://127.0.0.1:11434/v1';
    process.env.OPENAI_MODEL = 'llama3.1';
    process.env.OPENAI_TIMEOUT_MS = '1000';
  });
  afterAll(() => {
    server.close();
    delete process.env.OPENAI_BASE_URL;
    delete process.env.OPENAI_MODEL;
    delete process.env.OPENAI_TIMEOUT_MS;
  });

  it('streams the answer into the terminal as it arrives, after surviving a 500 and a timeout', async () => {
    let screen = '';
    const pieces: string[] = [];
    const code = await main(
      ['--db', ':memory:', '--yes', '--model', 'openai'],
      (line) => {
        screen += `${plain(line)}\n`;
      },
      {
        stream: (chunk) => {
          pieces.push(plain(chunk));
          screen += plain(chunk);
          // The mock holds back the rest of the answer until the first piece is on screen.
          if (chunk.includes('Ada has')) release();
        },
      },
    );
    expect(code).toBe(0);
    expect(attempts).toBe(4);
    expect(pieces).toEqual(['  model  ', 'Ada has ', 'two ', 'orders.', '\n']);
    expect(screen).toContain('model: llama3.1 at http://127.0.0.1:11434/v1');
    const streamed = screen.indexOf('  model  Ada has two orders.\n');
    expect(streamed).toBeGreaterThan(screen.indexOf('call   search_orders'));
    expect(screen.indexOf('answer Ada has two orders.')).toBeGreaterThan(streamed);
  });
});
