/**
 * The browser bundle alone: `npx tsx bench/bundle.ts` prints the figures of bench/lib/bundle-size.ts (the first
 * download, each lazy chunk, the subpaths) and the first download's inputs by file, largest first, with gzip
 * bytes estimated at the bundle's ratio: where the bytes of the target figure are.
 *
 * @module
 */
import { bundleSizes, firstDownloadSources } from './lib/bundle-size';

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

for (const size of await bundleSizes()) {
  const mark = size.target ? ' (target: ≤ 20 KB)' : '';
  console.log(
    `${kb(size.gzipBytes).padStart(9)} gzip ${kb(size.minBytes).padStart(9)} min  ${size.label}${mark}`,
  );
}
console.log('\nfirst download by input (gzip estimated at the bundle ratio):');
for (const source of await firstDownloadSources()) {
  console.log(
    `${String(source.minBytes).padStart(7)} min ${String(source.gzipEstimate).padStart(6)} gzip  ${source.input}`,
  );
}
