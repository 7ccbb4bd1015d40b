/**
 * The links of the docs, checked: every relative link of README.md and docs/ names a file that exists and, when
 * it has a `#fragment`, a heading of that file. Headings get GitHub's anchors, here and on the site (the config
 * gives VitePress this `slugify`), so a link works the same on a code host and on the built site.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** GitHub's anchor for a heading's text: lower case, punctuation dropped, each space a `-`. */
export function slugify(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The Markdown files of the docs: README.md and every page under docs/. */
export function docFiles(root: string): string[] {
  const pages = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return entry.name.startsWith('.') ? [] : pages(path);
      return entry.name.endsWith('.md') ? [path] : [];
    });
  return ['README.md', ...pages('docs')];
}

/** The lines of a Markdown text outside fenced code blocks. */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').filter((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced;
      return false;
    }
    return !fenced;
  });
}

/** The anchors of a Markdown text's headings, numbered as GitHub numbers repeats (`a`, `a-1`, …). */
export function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const line of prose(text)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading === null) continue;
    const plain = (heading[1] ?? '').replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/[`*]/g, '');
    const base = slugify(plain);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Every relative link that names no file, or no heading of its file: `file: target (why)`. */
export function deadLinks(root: string): string[] {
  const problems: string[] = [];
  const anchorsByFile = new Map<string, Set<string>>();
  const anchors = (file: string) => {
    let found = anchorsByFile.get(file);
    if (found === undefined) {
      found = anchorsOf(readFileSync(file, 'utf8'));
      anchorsByFile.set(file, found);
    }
    return found;
  };
  for (const file of docFiles(root)) {
    const path = join(root, file);
    const text = prose(readFileSync(path, 'utf8'))
      .join('\n')
      .replace(/`[^`\n]*`/g, '');
    for (const match of text.matchAll(/\]\(([^()\s]+)\)/g)) {
      const target = match[1] ?? '';
      if (/^[a-z][a-z+.-]*:/i.test(target)) continue;
      const [page = '', fragment] = target.split('#');
      const linked = page === '' ? path : resolve(dirname(path), page);
      if (!existsSync(linked)) {
        problems.push(`${file}: ${target} (no such file)`);
        continue;
      }
      if (statSync(linked).isDirectory() || fragment === undefined) continue;
      if (!linked.endsWith('.md')) {
        problems.push(`${file}: ${target} (an anchor into a file that is not Markdown)`);
      } else if (!anchors(linked).has(fragment)) {
        problems.push(`${file}: ${target} (no heading #${fragment} in ${relative(root, linked)})`);
      }
    }
  }
  return problems;
}
