import { bundleSizes } from '/work/wt/bundle20/bench/lib/bundle-size';

const s = await bundleSizes();
console.log(s[0]!.gzipBytes, s[2]!.gzipBytes);
