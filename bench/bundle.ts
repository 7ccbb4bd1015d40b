/**
 * The browser bundle alone: `npx tsx bench/bundle.ts` prints the figures of bench/lib/bundle-size.ts (the first
 * download, each lazy chunk, the subpaths), the first download next to the MCP SDK client, the AI SDK and
 * socket.io-client built the same way, and the first download's inputs by concept and by file, largest first,
 * with gzip bytes estimated at the bundle's ratio: where the bytes of the target figure are.
 *
 * @module
 */
import { FIRST_DOWNLOAD_GZIP_BYTES } from './budgets';
import { bundleSizes, firstDownloadConcepts, firstDownloadSources, peerBundles } from './lib/bundle-size';

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

const sizes = await bundleSizes();
for (const size of sizes) {
  const mark = size.target
    ? ` (target: ≤ 52 KB; budget: ${FIRST_DOWNLOAD_GZIP_BYTES} B, bench/budgets.ts)`
    : '';
  console.log(
    `${kb(size.gzipBytes).padStart(9)} gzip ${kb(size.minBytes).padStart(9)} min  ${size.label}${mark}`,
  );
}
console.log('\nside by side (esbuild, browser, minified, gzip level 9, zod left out):');
const first = sizes.find((size) => size.target)!;
for (const size of [{ ...first, label: 'toolwire, first download' }, ...(await peerBundles())]) {
  console.log(`${kb(size.gzipBytes).padStart(9)} gzip ${kb(size.minBytes).padStart(9)} min  ${size.label}`);
}
console.log('\nfirst download by concept (gzip estimated at the bundle ratio):');
for (const concept of await firstDownloadConcepts()) {
  console.log(
    `${String(concept.minBytes).padStart(7)} min ${String(concept.gzipEstimate).padStart(6)} gzip  ${concept.input} (${concept.files.join(', ')})`,
  );
}
console.log('\nfirst download by input (gzip estimated at the bundle ratio):');
for (const source of await firstDownloadSources()) {
  console.log(
    `${String(source.minBytes).padStart(7)} min ${String(source.gzipEstimate).padStart(6)} gzip  ${source.input}`,
  );
}
