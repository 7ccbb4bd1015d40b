import { invokeTool, tool, content } from '/work/wt/long-fix/src/index';
process.on('unhandledRejection', (e) => console.log('UNHANDLED', e));
const deep = () => { let v: unknown = 1; for (let i = 0; i < 200000; i++) v = [v]; return v; };
const cyc: Record<string, unknown> = { a: 1 }; cyc.self = cyc;
const throwingGetter = { get x() { throw new Error('getter boom'); } };
const throwingToJSON = { toJSON() { throw new Error('toJSON boom'); } };
const prox = new Proxy({}, { ownKeys() { throw new Error('proxy boom'); }, get() { throw new Error('proxy get'); } });
const cases: Array<[string, (ctx: any) => unknown]> = [
  ['progress NaN', (ctx) => ctx.progress({ progress: NaN })],
  ['progress big msg', (ctx) => ctx.progress({ progress: 1, message: 'x'.repeat(5e6) })],
  ['progress >total', (ctx) => ctx.progress({ progress: 5, total: 1 })],
  ['progress proxy', (ctx) => ctx.progress(prox)],
  ['emit cycle', (ctx) => ctx.emit('e', cyc)],
  ['emit bigint', (ctx) => ctx.emit('e', 10n)],
  ['emit deep', (ctx) => ctx.emit('e', deep())],
  ['emit getter', (ctx) => ctx.emit('e', throwingGetter)],
  ['emit toJSON', (ctx) => ctx.emit('e', throwingToJSON)],
  ['emit proxy', (ctx) => ctx.emit('e', prox)],
  ['emit fn', (ctx) => ctx.emit('e', () => 1)],
  ['emit symbol', (ctx) => ctx.emit('e', Symbol('s'))],
  ['emit huge', (ctx) => ctx.emit('e', 'x'.repeat(5e6))],
  ['emit many', (ctx) => { for (let i = 0; i < 1000; i++) ctx.emit('e', i); }],
  ['ask bad schema', (ctx) => ctx.askQuestion('q?', { schema: { type: 'nope' } })],
  ['ask schema fn', (ctx) => ctx.askQuestion('q?', { schema: () => 1 })],
  ['ask choices dup', (ctx) => ctx.askQuestion('q?', { choices: ['a', 'a'] })],
  ['ask choices obj', (ctx) => ctx.askQuestion('q?', { choices: { length: 2 } })],
  ['ask proxy opts', (ctx) => ctx.askQuestion('q?', prox)],
  ['content bad b64', () => content([{ type: 'image', data: 'not base64!', mediaType: 'image/png' }])],
  ['content bad mt', () => content([{ type: 'image', data: 'AAAA', mediaType: 'image/svg+xml' as any }])],
  ['content file mt', () => content([{ type: 'file', data: 'AAAA', mediaType: 'x\n]evil' }])],
  ['content json deep', () => content([{ type: 'json', value: deep() }])],
  ['content json bigint', () => content([{ type: 'json', value: 1n }])],
  ['content text proxy', () => content([prox as any])],
  ['content sparse', () => content([, ] as any)],
];
for (const [name, f] of cases) {
  const t = tool({ name: 't', description: 'd', execute: async (_i, ctx) => { const r = await f(ctx); return r ?? 'done'; } });
  const events: unknown[] = [];
  const r = await invokeTool(t, {}, { onProgress: (p) => events.push(['p', JSON.stringify(p).slice(0, 80)]), onEmit: (e) => events.push(['e', JSON.stringify(e).slice(0, 80)]), onQuestion: () => ({ answer: 'x' }) });
  console.log(name, '→', r.status, JSON.stringify(r.output).slice(0, 200), events.length, JSON.stringify(events.slice(0, 2)).slice(0, 200));
}
// yields
const ys: Array<[string, unknown]> = [['cycle', cyc], ['bigint', 5n], ['deep', deep()], ['getter', throwingGetter], ['toJSON', throwingToJSON], ['proxy', prox], ['fn', () => 1], ['symbol', Symbol('x')]];
for (const [name, v] of ys) {
  const t = tool({ name: 't', description: 'd', async *execute() { yield v; return 'end'; } });
  const pre: unknown[] = [];
  const r = await invokeTool(t, {}, { onPreliminary: (p) => pre.push(p.output.slice(0, 80)) });
  console.log('yield', name, '→', r.status, JSON.stringify(r.output).slice(0, 150), JSON.stringify(pre));
}
// return values
for (const [name, v] of ys) {
  const t = tool({ name: 't', description: 'd', execute: () => v });
  const r = await invokeTool(t, {});
  console.log('return', name, '→', r.status, JSON.stringify(r.output).slice(0, 150));
}
