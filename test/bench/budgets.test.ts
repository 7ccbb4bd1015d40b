import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FIRST_DOWNLOAD_GZIP_BYTES, FIRST_DOWNLOAD_SLACK_BYTES, PLAIN_CALL_TRIP } from '../../bench/budgets';
import { bundleSizes } from '../../bench/lib/bundle-size';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

describe('the budgets of bench/budgets.ts', { timeout: 60_000 }, () => {
  it('the plain call enters the files and functions its budget names, no more and no fewer', async () => {
    // In a process of its own: V8's call counts must see src/ as Node loads it, not as vitest transforms it.
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bench/trip.ts', '--json'], {
      cwd: root,
    });
    const trip = JSON.parse(stdout) as typeof PLAIN_CALL_TRIP;
    expect(
      trip,
      'The plain call now takes another trip (npm run bench:trip -- --list shows it). A capability the plain call ' +
        'does not use must cost it nothing (decide the path when the tool is defined or the client is made); a ' +
        'shorter trip is a gain to keep. Either way, write the new figures in bench/budgets.ts and say why.',
    ).toEqual(PLAIN_CALL_TRIP);
  });

  it('the browser first download stays within its budget, and a gain lowers the budget', async () => {
    const first = (await bundleSizes()).find((size) => size.target)!;
    expect(
      first.gzipBytes,
      `The browser first download grew to ${first.gzipBytes} B gzip (budget ${FIRST_DOWNLOAD_GZIP_BYTES} B; ` +
        'npx tsx bench/bundle.ts shows where). Code a plain page does not need should load on first use ' +
        '(src/code-on-demand.ts). If every page needs it, raise the budget in bench/budgets.ts and say why.',
    ).toBeLessThanOrEqual(FIRST_DOWNLOAD_GZIP_BYTES);
    expect(
      first.gzipBytes,
      `The browser first download fell to ${first.gzipBytes} B gzip: lower FIRST_DOWNLOAD_GZIP_BYTES in ` +
        'bench/budgets.ts to keep the gain.',
    ).toBeGreaterThan(FIRST_DOWNLOAD_GZIP_BYTES - FIRST_DOWNLOAD_SLACK_BYTES);
  });
});
