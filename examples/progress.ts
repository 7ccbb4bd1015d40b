/**
 * A long call: the export reports its progress, records an event per table, shows a preliminary result, and
 * runs several times longer than the service's per-call deadline (here the stub's is 300 ms) because the client
 * keeps the call's lease alive. Run: npx tsx examples/progress.ts
 */
import { Agent, tool } from 'toolwire';
import { answerWithLastOutput, runExample } from './run-example';

const TABLES = ['orders', 'customers', 'invoices', 'products'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const exportTables = tool({
  name: 'export_tables',
  description: 'Exports every table to the warehouse; takes a while.',
  async *execute(_input, ctx) {
    for (const [done, table] of TABLES.entries()) {
      ctx.progress({ progress: done, total: TABLES.length, message: `exporting ${table}` });
      await sleep(300); // the real work
      ctx.emit('table.exported', { table });
      // A snapshot for the UI (never read by the model); a newer one replaces it.
      yield { exported: TABLES.slice(0, done + 1) };
    }
    ctx.progress({ progress: TABLES.length, total: TABLES.length, message: 'exported all tables' });
    return `exported ${TABLES.length} tables (${TABLES.join(', ')})`;
  },
});

const result = await runExample({
  agent: new Agent({ name: 'Exporter', instructions: 'Export the data.', tools: [exportTables] }),
  input: 'Export everything.',
  script: [{ toolCalls: [{ name: 'export_tables', arguments: {} }] }, answerWithLastOutput],
  stub: { callDeadlineMs: 300, leaseMs: 1_000 },
  onEvent: (event) => {
    if (event.kind === 'tool_progress')
      console.log(`progress ${event.progress}/${event.total}: ${event.message}`);
    if (event.kind === 'tool_event') console.log(`event ${event.event} ${JSON.stringify(event.data)}`);
  },
});

const ranMs = result.toolCalls[0]?.durationMs ?? 0;
console.log(`ran past the stub's 300 ms per-call deadline and completed: ${ranMs > 300}`);
