import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { format, promisify } from 'node:util';
import { describe, expect, it, vi } from 'vitest';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Runs an example in this process and returns what it printed to stdout: importing it runs the whole program
 * (its top-level await), as `npx tsx examples/<name>.ts` does in a process of its own. One at a time, since
 * what it prints is read from `console`.
 */
async function example(name: string): Promise<string> {
  const printed: string[] = [];
  const print = (...args: unknown[]) => {
    printed.push(`${format(...args)}\n`);
  };
  const log = vi.spyOn(console, 'log').mockImplementation(print);
  const info = vi.spyOn(console, 'info').mockImplementation(print);
  try {
    await import(`../examples/${name}.ts`);
  } finally {
    log.mockRestore();
    info.mockRestore();
  }
  return printed.join('');
}

const ZOD4_OUTPUT = [
  'convert_temperature({"value":"21","to":"fahrenheit"}) → invalid_arguments: Invalid arguments for convert_temperature: value: expected a number, received "21"',
  'convert_temperature({"value":21,"to":"fahrenheit"}) → ok: 69.8°F',
  'answer: 69.8°F',
  '',
].join('\n');

describe('an example run the way the README says', { timeout: 60_000 }, () => {
  it('zod4, with npx tsx in a process of its own, prints the same', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'examples/zod4.ts'], {
      cwd: root,
      timeout: 50_000,
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
    });
    expect(stdout).toBe(ZOD4_OUTPUT);
  });
});

// The first example imports the sources; on a busy machine that alone can take 20 s.
describe('examples', { timeout: 60_000 }, () => {
  it('zod4: refuses a string for a number, then converts', async () => {
    expect(await example('zod4')).toBe(ZOD4_OUTPUT);
  });

  it('zod3: applies the default and decodes string arguments', async () => {
    expect(await example('zod3')).toContain(
      'shipping_quote("{\\"weightKg\\":2.5}") → ok: {"priceEur":10,"express":false}',
    );
  });

  it('valibot: refuses a malformed email with its path', async () => {
    const out = await example('valibot');
    expect(out).toContain(
      '→ invalid_arguments: Invalid arguments for create_account: email: expected a string in the format "email", received "grace at example.com"',
    );
    expect(out).toContain('answer: Created free account for grace@example.com');
  });

  it('arktype: refuses an out-of-range integer', async () => {
    const out = await example('arktype');
    expect(out).toContain(
      '→ invalid_arguments: Invalid arguments for book_room: people: expected an integer >= 1 and <= 12, received 20',
    );
    expect(out).toContain('answer: Booked atlas for 12');
  });

  it('json-schema: validates and returns JSON', async () => {
    expect(await example('json-schema')).toContain('search_docs({"query":"approv"}) → ok: ["Approvals"]');
  });

  it('no-parameters: treats empty arguments as {}', async () => {
    expect(await example('no-parameters')).toContain('server_time("") → ok: 2026-11-29');
  });

  it('widgets: the model gets the data, the UI gets the widget', async () => {
    const out = await example('widgets');
    expect(out).toContain('sales_report({"quarter":"Q3"}) → ok: {"total":390}');
    expect(out).toContain('widget for the UI: {"type":"Card","title":"Sales Q3"');
  });

  it('approval: runs approved calls, skips the predicate when it says no, rejects with a reason', async () => {
    const out = await example('approval');
    expect(out).toContain('delete_user({"userId":"u_42"}) → ok: deleted u_42');
    expect(out).toContain('transfer({"amountEur":50}) → ok: transferred €50');
    expect(out).toContain(
      'transfer({"amountEur":5000}) → rejected: transfer was not run: the user declined. Reason: over the daily limit',
    );
    expect(out).not.toContain('asked about transfer {"amountEur":50}');
  });

  it('from-ai-sdk: ai tool() objects run unchanged, with the AI SDK options and toModelOutput', async () => {
    const out = await example('from-ai-sdk');
    expect(out.replace(/call_[0-9a-f-]{36}/, 'call_<id>')).toBe(
      [
        'execute call_<id>: acc_1 for bank-eu',
        'get_balance({"accountId":"acc_1"}) → ok: Ada: €1200',
        'convert({"eur":1200,"to":"USD"}) → ok: {"amount":1320,"currency":"USD"}',
        'answer: {"amount":1320,"currency":"USD"}',
        '',
      ].join('\n'),
    );
  });

  it('from-openai-agents: the mirrored shape with strict: true, errorFunction and needsApproval', async () => {
    expect(await example('from-openai-agents')).toBe(
      [
        'announced: {"type":"object","properties":{"orderId":{"type":"string"},"note":{"type":["string","null"]}},"required":["orderId","note"],"additionalProperties":false}',
        'refund_order({"orderId":"o_1","note":null}) → ok: acme refunded o_1',
        'refund_order({"orderId":"o_0","note":"late"}) → error: Could not refund: order o_0 was never paid. Tell the customer.',
        'refund_order({"orderId":"o_big","note":null}) → rejected: refund_order was not run: the user declined.',
        'answer: refund_order was not run: the user declined.',
        '',
      ].join('\n'),
    );
  });

  it('from-mcp: an MCP server over stdio, its tools run for the hosted agent', async () => {
    const out = await example('from-mcp');
    expect(out).toContain('→ ok: Radar for Oslo: showers moving east.\n[image: image/png, 68 bytes]\n');
    // The two calls of the second turn run at once, so their lines may come in either order.
    expect(out.split('\n').sort()).toEqual(
      [
        'from MCP: wx_weather_current, wx_weather_radar',
        'wx_weather_current({"city":"O"}) → invalid_arguments: Invalid arguments for wx_weather_current: city: expected a string of at least 2 characters, received a string of 1 character',
        'wx_weather_current({"city":"Bergen"}) → error: Error running wx_weather_current: no station in Bergen',
        'wx_weather_radar({"city":"Oslo"}) → ok: Radar for Oslo: showers moving east.',
        '[image: image/png, 68 bytes]',
        'wx_weather_current({"city":"Oslo"}) → ok: 4°C, light snow',
        'answer: 4°C, light snow',
        '',
      ].sort(),
    );
  });

  it('to-ai-sdk: the same tool in a local AI SDK loop, the model reading the same texts', async () => {
    expect(await example('to-ai-sdk')).toBe(
      [
        'convert_temperature({"value":"21","to":"fahrenheit"}) → tool-error: Invalid arguments for convert_temperature: value: expected a number, received "21"',
        'convert_temperature({"value":21,"to":"fahrenheit"}) → tool-result: 69.8°F',
        'answer: 69.8°F',
        '',
      ].join('\n'),
    );
  });

  it('agents-as-tools: the nested agent answers the outer one', async () => {
    expect(await example('agents-as-tools')).toContain(
      'answer: According to the researcher: Oslo has about 0.71 million people.',
    );
  });

  it('progress: reports progress and events, and runs past the stub deadline to ok', async () => {
    const out = await example('progress');
    expect(out).toContain('progress 0/4: exporting orders');
    expect(out).toContain('progress 4/4: exported all tables');
    for (const table of ['orders', 'customers', 'invoices', 'products']) {
      expect(out).toContain(`event table.exported {"table":"${table}"}`);
    }
    expect(out).toContain(
      'export_tables({}) → ok: exported 4 tables (orders, customers, invoices, products)',
    );
    expect(out).toContain("ran past the stub's 300 ms per-call deadline and completed: true");
  });

  it('ask-question: answers with a choice and a schema, and the tool goes on after a decline', async () => {
    expect(await example('ask-question')).toBe(
      [
        'question q1: Which warehouse? [Berlin, Lyon, Oslo] → "Lyon"',
        'question q2: How many copies? → "2"',
        'question q3: What should the cover letter say? → declined (no time)',
        'ship_export({}) → ok: shipped 2 copies to Lyon, no cover letter (declined: no time)',
        'answer: shipped 2 copies to Lyon, no cover letter (declined: no time)',
        '',
      ].join('\n'),
    );
  });

  it('rich-content: the model reads the text with a note per image or file, the parts go beside it', async () => {
    const out = await example('rich-content');
    expect(out).toContain(
      'sales_chart({}) → ok: Sales of Q3, by week.\n[image: image/png, 70 bytes]\n{"quarter":"Q3","total":390}\n[file q3.csv: text/csv, 16 bytes]',
    );
    expect(out).toContain('answer: I got text, image, json, file parts.');
    expect(out).toContain('part image image/png, 70 bytes');
  });
});
