import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * A comment that cites a file of the repository, from its root or from the citing file's folder, names one
 * that exists, so that a reader who follows it lands somewhere: a file moved or merged takes its citations
 * along.
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const FOLDERS = ['src', 'server-stub', 'test', 'bench', 'examples'];

function sources(folder: string, out: string[] = []): string[] {
  for (const entry of readdirSync(folder)) {
    if (entry === 'node_modules' || entry.startsWith('.') || entry === 'artifacts') continue;
    const path = join(folder, entry);
    if (statSync(path).isDirectory()) sources(path, out);
    else if (/\.(ts|tsx|mts)$/.test(entry) && !entry.includes('.generated.')) out.push(path);
  }
  return out;
}

/** A path in a comment: relative to the citing file, or from the repository's root (`src/…`, `docs/…`, …). */
const CITED =
  /(?<![\w@/.-])((?:\.{1,2}\/|(?:src|server-stub|test|bench|examples|docs)\/)[\w./-]*\.(?:ts|md|json))\b/g;
const COMMENT = /(?:\/\/|^\s*\*|\/\*)(.*)$/;

describe('citations in comments', () => {
  it('name files that exist', () => {
    const missing: string[] = [];
    for (const file of FOLDERS.flatMap((folder) => sources(join(root, folder)))) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, index) => {
          const comment = COMMENT.exec(line)?.[1];
          if (comment === undefined) return;
          for (const [, cited] of comment.matchAll(CITED)) {
            if (cited === undefined) continue;
            const from = cited.startsWith('.') ? dirname(file) : root;
            if (!existsSync(join(from, cited)))
              missing.push(`${file.slice(root.length)}:${index + 1} ${cited}`);
          }
        });
    }
    expect(missing).toEqual([]);
  });
});
