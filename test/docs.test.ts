/**
 * The documentation a user of the package has: every Markdown file tracked by git.
 *
 * - Relative links (`[x](path)`, `![x](path)`, `[x]: path`, with or without `#anchor`) point to files
 *   that exist, and an anchor (on the same page or another Markdown page) matches a heading there, by
 *   GitHub's slug rules.
 * - No tracked file (test files aside) points at material the repository does not have: the project's
 *   source documents by number ("seed 0…") or the folders they lived in outside the repository.
 * - README.md stays a front door: at most 11,000 bytes.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/cli.js';

export const README_MAX_BYTES = 11_000;

function tracked(pattern?: string): string[] {
  const args = ['ls-files', '-z', ...(pattern ? [pattern] : [])];
  return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f !== '' && existsSync(join(ROOT, f)));
}

/** Markdown lines outside fenced code blocks, with inline code spans blanked out (1-based line numbers). */
export function proseLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: string | null = null;
  text.split(/\r?\n/).forEach((raw, i) => {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(raw);
    if (m) {
      if (fence === null) fence = m[1]![0]!.repeat(m[1]!.length);
      else if (m[1]!.startsWith(fence)) fence = null;
      return;
    }
    if (fence !== null) return;
    out.push({ line: i + 1, text: raw.replace(/(`+)[^`]*?\1/g, (s) => ' '.repeat(s.length)) });
  });
  return out;
}

/** GitHub's heading anchor: lower case, punctuation other than `-` and `_` dropped, each space a `-`. */
export function githubSlug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link or image: its text
    .replace(/<[^>]+>/g, '') // inline HTML
    .trim();
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown text: its headings' slugs (repeats numbered -1, -2 …) and explicit ids. */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | null = null;
  for (const raw of text.split(/\r?\n/)) {
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(raw);
    if (f) {
      if (fence === null) fence = f[1]![0]!.repeat(f[1]!.length);
      else if (f[1]!.startsWith(fence)) fence = null;
      continue;
    }
    if (fence !== null) continue;
    for (const m of raw.matchAll(/<a\s[^>]*(?:name|id)="([^"]+)"/gi)) anchors.add(m[1]!);
    const h = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(raw);
    if (!h) continue;
    const base = githubSlug(h[1]!.replace(/`/g, ''));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

export interface Link {
  line: number;
  target: string;
}

/** Inline links and images `[x](target)`, `![x](target)`, and reference definitions `[x]: target`. */
export function linksOf(text: string): Link[] {
  const links: Link[] = [];
  for (const { line, text: t } of proseLines(text)) {
    for (const m of t.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>]*>|[^)\s]*)(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ line, target: m[1]!.replace(/^<|>$/g, '') });
    }
    const def = /^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)/.exec(t);
    if (def) links.push({ line, target: def[1]!.replace(/^<|>$/g, '') });
  }
  return links;
}

/** A link that leaves the repository (a URL with a scheme, or protocol-relative). */
function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
}

const markdownFiles = tracked('*.md');
const anchorCache = new Map<string, Set<string>>();
function anchorsOfFile(file: string): Set<string> {
  let a = anchorCache.get(file);
  if (!a) {
    a = anchorsOf(readFileSync(join(ROOT, file), 'utf8'));
    anchorCache.set(file, a);
  }
  return a;
}

/** Broken relative links and anchors of the tracked Markdown files, as `file:line: …`. */
function brokenLinks(): string[] {
  const broken: string[] = [];
  for (const file of markdownFiles) {
    for (const { line, target } of linksOf(readFileSync(join(ROOT, file), 'utf8'))) {
      if (target === '' || isExternal(target)) continue;
      const hash = target.indexOf('#');
      const pathPart = hash >= 0 ? target.slice(0, hash) : target;
      const anchor = hash >= 0 ? decodeURIComponent(target.slice(hash + 1)) : '';
      let dest = file;
      if (pathPart !== '') {
        const rel = decodeURIComponent(pathPart.split('?')[0]!);
        dest = rel.startsWith('/') ? rel.slice(1) : posix.normalize(posix.join(posix.dirname(file), rel));
        if (dest.startsWith('../') || !existsSync(join(ROOT, dest))) {
          broken.push(`${file}:${line}: link to ${target}: ${dest} does not exist in the repository`);
          continue;
        }
      }
      if (anchor === '' || !dest.endsWith('.md') || statSync(join(ROOT, dest)).isDirectory()) continue;
      if (!anchorsOfFile(dest).has(anchor)) {
        broken.push(`${file}:${line}: link to ${target}: no heading in ${dest} has the anchor #${anchor}`);
      }
    }
  }
  return broken;
}

/** What the repository must not point at: source documents by number, or folders outside it. */
export const FORBIDDEN_MENTIONS: { name: string; re: RegExp }[] = [
  { name: 'seed 0NN', re: /\bseed\s+0\d/i },
  { name: '../shared', re: /\.\.\/shared/ },
  { name: 'shared/reference', re: /shared\/reference/ },
  { name: 'shared/config-format', re: /shared\/config-format/ },
  { name: 'shared/seeds', re: /shared\/seeds/ },
];

/** Every `file:line: mention` of a forbidden reference in one file's text (a "seed" wrapped onto the next line counts). */
export function mentionsIn(file: string, text: string): string[] {
  const found: string[] = [];
  const lines = text.split(/\r?\n/);
  lines.forEach((line, i) => {
    for (const { name, re } of FORBIDDEN_MENTIONS) if (re.test(line)) found.push(`${file}:${i + 1}: ${name}: ${line.trim().slice(0, 140)}`);
    // "… seed" at the end of one line, "004 …" at the start of the next (comment markers aside).
    const next = lines[i + 1];
    if (/\bseed\s*$/i.test(line) && next !== undefined && /^\s*(?:\*|\/\/|#|-)?\s*0\d/.test(next)) {
      found.push(`${file}:${i + 1}: seed 0NN (wrapped): ${line.trim().slice(-60)} / ${next.trim().slice(0, 60)}`);
    }
  });
  return found;
}

/** The mentions in the given repository files; binary files (PNG) are skipped. */
function forbiddenMentions(files: string[]): string[] {
  return files.flatMap((file) => {
    const buf = readFileSync(join(ROOT, file));
    return buf.includes(0) ? [] : mentionsIn(file, buf.toString('utf8'));
  });
}

function isTestFile(file: string): boolean {
  return file.startsWith('test/');
}

describe('documentation', () => {
  it('finds the Markdown files tracked by git', () => {
    expect(markdownFiles).toContain('README.md');
  });

  it('has no relative link to a missing file or heading', () => {
    const broken = brokenLinks();
    expect(broken, `broken links:\n${broken.join('\n')}`).toEqual([]);
  });

  it('names no source document by number and no folder outside the repository', () => {
    const files = tracked().filter((f) => !isTestFile(f));
    const found = forbiddenMentions(files);
    expect(
      found,
      `${found.length} mention(s) of material the repository does not have (name sources by their docs/sources.md keys; link into docs/):\n${found.join('\n')}`,
    ).toEqual([]);
  });

  it(`keeps README.md at most ${README_MAX_BYTES} bytes`, () => {
    const bytes = statSync(join(ROOT, 'README.md')).size;
    expect(bytes, `README.md is ${bytes} bytes; move detail into docs/`).toBeLessThanOrEqual(README_MAX_BYTES);
  });
});

/**
 * Paths of this repository named in prose and comments (`src/…`, `test/…`, `docs/…`, `sim-configs/…`,
 * `bin/…`, `.ci/…`, ending in a file name with an extension): each must exist. PostgreSQL's own source
 * paths (src/backend/…, src/include/…) are citations, globs are patterns, and the format docs/engines.md
 * adds as an example does not exist on purpose.
 */
export const REPO_PATH = /(?<![\w./-])((?:src|test|docs|sim-configs|bin|\.ci)\/[A-Za-z0-9_./*-]*\.[a-z]{1,5})\b/g;
const CITED_ELSEWHERE = /^src\/(backend|include|common|port)\//;
const EXAMPLE_PATHS = new Set(['src/formats/innodb.ts']);

export function missingRepoPaths(file: string, text: string, exists: (path: string) => boolean): string[] {
  const out: string[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    for (const m of line.matchAll(REPO_PATH)) {
      const path = m[1]!.replace(/\.+$/, '');
      if (path.includes('*') || CITED_ELSEWHERE.test(path) || EXAMPLE_PATHS.has(path) || exists(path)) continue;
      out.push(`${file}:${i + 1}: ${path} does not exist in the repository`);
    }
  });
  return out;
}

describe('paths the documentation and the code name', () => {
  it('every repository path a Markdown page or a source comment names exists', () => {
    const files = [...markdownFiles, ...tracked('src/*.ts'), ...tracked('.ci/*')];
    const missing = files.flatMap((file) =>
      missingRepoPaths(file, readFileSync(join(ROOT, file), 'utf8'), (p) => existsSync(join(ROOT, p))),
    );
    expect(missing, missing.join('\n')).toEqual([]);
  });

  it('the path check sees a stale path, and passes citations, globs and the example', () => {
    const exists = (p: string) => p === 'src/loader/config.ts';
    const text =
      'see src/loader/config.ts and (src/estimate/config.ts),\n[heaptoast.h] src/include/varatt.h, `src/heap/*.ts`, src/formats/innodb.ts';
    expect(missingRepoPaths('a.md', text, exists)).toEqual(['a.md:1: src/estimate/config.ts does not exist in the repository']);
  });
});

describe('the documentation checks themselves', () => {
  it('slugs headings as GitHub does', () => {
    expect(githubSlug('The `estimate:` section')).toBe('the-estimate-section');
    expect(githubSlug('rowsim pg-check: checked against a live PostgreSQL')).toBe('rowsim-pg-check-checked-against-a-live-postgresql');
    expect(githubSlug('exp_row_size, fillfactor & PCTFREE')).toBe('exp_row_size-fillfactor--pctfree');
    expect([...anchorsOf('# A\n## A\n```\n# not a heading\n```\n### B (c)\n')]).toEqual(['a', 'a-1', 'b-c']);
  });

  it('finds links outside code only', () => {
    const md = '[a](x.md#y) and `[b](no.md)`\n```\n[c](no.md)\n```\n![d](img/p.png "t")\n[e]: ../e.md\n';
    expect(linksOf(md)).toEqual([
      { line: 1, target: 'x.md#y' },
      { line: 5, target: 'img/p.png' },
      { line: 6, target: '../e.md' },
    ]);
  });

  it('sees a source document by number, also wrapped onto the next line', () => {
    expect(mentionsIn('a.ts', '// as Seed 004 says')).toHaveLength(1);
    expect(mentionsIn('a.ts', 'seed: 0\nseeds 0 to 4')).toEqual([]);
    expect(mentionsIn('a.md', 'which one ASE uses; seed\n004 is the bet')).toEqual([
      'a.md:1: seed 0NN (wrapped): which one ASE uses; seed / 004 is the bet',
    ]);
    expect(mentionsIn('a.ts', ' * see ../shared/x and shared/seeds/000')).toHaveLength(2);
  });
});

/** The source keys docs/sources.md defines: the first cell of its tables' rows, and [keys] in its prose. */
function sourceKeys(): Set<string> {
  const keys = new Set<string>();
  for (const line of readFileSync(join(ROOT, 'docs', 'sources.md'), 'utf8').split('\n')) {
    const cell = /^\|\s*(?:<a name="[^"]*"><\/a>)?\[?([^\]|]+?)\]?\s*\|/.exec(line);
    if (cell && !/^(-+|key|—)$/.test(cell[1]!.trim())) for (const k of cell[1]!.split(',')) keys.add(k.trim());
    for (const m of line.matchAll(/`\[([^\]`]+)\]`/g)) keys.add(m[1]!);
  }
  return keys;
}

/**
 * A bracketed word in a comment that names a source: a manual's key ([E], [R3], [AB]), a source
 * document's ([S-ASE-BET]), a PostgreSQL file ([hio.c]), or a named key. (Upper-case words such as
 * [IDENTITY] in SQL syntax notation are not keys.)
 */
const SOURCE_KEY =
  /\[([A-Z]{1,2}[0-9]?|S-[A-Z0-9-]+|[A-Z]+-[A-Z0-9-]+|[a-z_]+\.[ch]|pages|heaps|estimate|versioning|fwd|oracle|fillfactor|reference|USL|MVA|LOCKS|CAS|YCSB|YAO|TWEAKERS|SIMPY|MCS|ANDERSON|LEANSTORE|OLC)\]/g;

describe('source keys in the code', () => {
  it('every [key] a code comment cites is defined in docs/sources.md', () => {
    const keys = sourceKeys();
    const missing: string[] = [];
    for (const file of tracked('src/*.ts')) {
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          const comment = /^\s*(\*|\/\/|\/\*\*)/.test(line) ? line : (/\/\/(.*)$/.exec(line)?.[1] ?? '');
          for (const m of comment.matchAll(SOURCE_KEY)) if (!keys.has(m[1]!)) missing.push(`${file}:${i + 1}: [${m[1]}]`);
        });
    }
    expect(missing).toEqual([]);
  });
});
