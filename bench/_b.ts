import { bundleSizes } from './lib/bundle-size';
for (const b of await bundleSizes()) console.log(b.label, b.minBytes, b.gzipBytes, JSON.stringify(b.largest));
