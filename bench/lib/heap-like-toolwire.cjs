/*
 * Preloaded into the floor (`node -r`) by bench/large-arguments.ts `--floor-heap-like-toolwire`: gives the floor's
 * process the heap shape of toolwire's subject, with none of its code. Two parts, each in MB or ids a second from
 * the environment:
 * - BALLAST_MB (9): objects that stay alive, as the code toolwire's subject loads does (zod, toolwire: its live
 *   heap after a full collection is ~11 MB, the floor's ~4.3 MB);
 * - IDS_PER_SECOND (30,000): strings like a call id kept in a ring of 20,000, as toolwire's finished ids are
 *   (at-most-once): each lives long enough to reach the old generation, then dies there.
 * It calls no function of the floor; a timer every 10 ms writes the ring, unreferenced.
 */
const ballastMb = Number(process.env.BALLAST_MB ?? 9);
const idsPerSecond = Number(process.env.IDS_PER_SECOND ?? 30_000);
globalThis.heapLikeToolwire = Array.from({ length: (ballastMb * 1024 * 1024) / 64 }, (_, i) => ({
  a: i,
  b: i + 1,
  c: null,
}));
const ring = new Array(20_000);
let written = 0;
setInterval(() => {
  for (let i = 0; i < idsPerSecond / 100; i++) {
    ring[written++ % ring.length] = `call_${Math.random().toString(16).slice(2, 14)}-${written}-000000000000`;
  }
}, 10).unref();
