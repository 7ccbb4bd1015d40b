/**
 * The directory where the slow tier's package tests share one `npm pack` of a fresh clone (vitest `globalSetup`
 * of the `slow` project): named here, made by the first file that packs (test/package/fresh-pack.ts
 * {@link sharedPack}), removed when the run ends. A run without a package test packs nothing.
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  interface ProvidedContext {
    /** Where the run's package tests share their tarball (see test/package/fresh-pack.ts `sharedPack`). */
    packDir: string;
  }
}

export default function packDir(project: TestProject): () => void {
  const dir = join(tmpdir(), `toolwire-pack-${process.pid}-${Date.now().toString(36)}`);
  project.provide('packDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
