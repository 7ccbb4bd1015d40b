import { Execution } from '../src/client/execution';
import { settleThen } from '../src/call/settle';
const owner = { finished() {} };
const frames = Array.from({ length: 1000 }, (_, i) => ({ type: 'tool_call' as const, callId: `c${i}`, runId: 'r', toolName: 'add', arguments: { a: 1 }, deadlineMs: 30000, depth: 0 }));
function execs(n: number) { let k: unknown; for (let i = 0; i < n; i++) { const e = new Execution(frames[i % 1000]!, owner); k = e.callId ?? (e as any).frame.callId; } return k; }
async function waits(n: number) {
  let done = 0; const owner2 = { fail() {} };
  for (let i = 0; i < n; i++) settleThen(() => Promise.resolve(i), {}, () => { done++; }, owner2);
  await new Promise((r) => setTimeout(r, 0)); return done;
}
for (let rep = 0; rep < 5; rep++) {
  let t = performance.now(); execs(1_000_000); const a = (performance.now() - t);
  t = performance.now(); await waits(300_000); const b = (performance.now() - t) / 0.3;
  console.log(`Execution ${a.toFixed(0)} ns/call, settleThen async ${b.toFixed(0)} ns/call`);
}
