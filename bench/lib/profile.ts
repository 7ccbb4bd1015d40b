/**
 * Reads a V8 `.cpuprofile` (from `node --cpu-prof`) and lists where the time went: self time per function,
 * and per module (a package in node_modules, a bundled src/ file, or Node's internals).
 *
 * @module
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function moduleOf(url: string): string {
  if (url === '') return '(native / V8)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return 'node internals';
  const file = url.split('/').at(-1) ?? url;
  return file;
}

/** The `limit` functions with the most self time, and the time per module, as text. */
export function hottest(file: string, limit: number): string {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    self.set(id, (self.get(id) ?? 0) + delta);
    total += delta;
  });
  const functions = new Map<string, number>();
  const modules = new Map<string, number>();
  let idleTime = 0;
  for (const [id, time] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') {
      idleTime += time;
      continue;
    }
    const where = moduleOf(url);
    const name = `${functionName || '(anonymous)'}  ${where}:${lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + time);
    modules.set(where, (modules.get(where) ?? 0) + time);
  }
  const busy = total - idleTime;
  const pct = (time: number) => `${((time / busy) * 100).toFixed(1).padStart(5)}%`;
  const lines = [
    `self time, % of ${(busy / 1000).toFixed(0)} ms busy (idle ${(idleTime / 1000).toFixed(0)} ms excluded)`,
  ];
  lines.push('', 'by module:');
  for (const [name, time] of [...modules].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
    lines.push(`  ${pct(time)}  ${name}`);
  }
  lines.push('', 'by function:');
  for (const [name, time] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, limit)) {
    lines.push(`  ${pct(time)}  ${name}`);
  }
  return `${lines.join('\n')}\n`;
}
