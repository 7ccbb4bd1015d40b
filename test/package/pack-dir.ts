/**
 * The directory where the slow tier's package tests share one `npm pack` of a fresh clone (vitest `globalSetup`
 * of the `slow` and `browser` projects): named here, made by the first file that packs (test/package/fresh-pack.ts
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
  // One directory for the run: the slow and browser projects both set this file up (each may load it afresh),
  // in the one main process, and share the pack.
  process.env.TOOLWIRE_PACK_DIR ??= join(tmpdir(), `toolwire-pack-${process.pid}-${Date.now().toString(36)}`);
  const dir = process.env.TOOLWIRE_PACK_DIR;
  project.provide('packDir', dir);
  return () => rmSync(dir, { recursive: true, force: true });
}
