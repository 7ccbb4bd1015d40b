/**
 * The optional peers' ranges admit the versions the SDKs users come from bring along, so that toolwire installs
 * beside them without `--legacy-peer-deps`: npm refuses (ERESOLVE) a project whose other packages need a major
 * of a peer that toolwire's range leaves out, though toolwire never loads that peer there.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  peerDependencies: Record<string, string>;
};
const lock = JSON.parse(readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8')) as {
  packages: Record<string, { peerDependencies?: Record<string, string> }>;
};

it('admits openai 7, which the OpenAI Agents SDK (@openai/agents 0.20) depends on, and 6', () => {
  const range = manifest.peerDependencies.openai as string;
  // `^6.0.0 || ^7.0.0`: the majors its caret ranges admit.
  const majors = range.split('||').map((part) => /^\s*\^(\d+)\.\d+\.\d+\s*$/.exec(part)?.[1]);
  expect(majors, range).toContain('7');
  expect(majors, range).toContain('6');
});

it('has the peer ranges of package.json in the lock', () => {
  expect(lock.packages['']?.peerDependencies).toEqual(manifest.peerDependencies);
});
