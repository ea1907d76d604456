/**
 * Self time by function in a .cpuprofile (what `node --cpu-prof` writes): bench/profile.ts prints it,
 * with positions in the TypeScript sources where dist/ has a source map beside the compiled file.
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The parts of a .cpuprofile (Chrome DevTools' format) that self time needs. */
export interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber?: number } }[];
  samples: number[];
  timeDeltas: number[];
}

export interface SelfTime {
  /** `function where` (where: as `locate` says; by default the URL's path from dist/ on and the line from 1). */
  name: string;
  ms: number;
  share: number;
}

/** Where a frame is, for people: a position is 0-based in the profile. */
export type Locate = (url: string, line: number, column: number) => string;

const fromDist: Locate = (url, line) => `${url.replace(/^file:\/\//, '').replace(/^.*\/dist\//, '')}:${line + 1}`;

/** The functions with the most self time: each sample's time charged to the node it landed in, summed by function and place. */
export function topSelfTime(p: CpuProfile, n: number, locate: Locate = fromDist): SelfTime[] {
  const byNode = new Map<number, number>();
  p.samples.forEach((id, i) => byNode.set(id, (byNode.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
  const byName = new Map<string, number>();
  let total = 0;
  for (const node of p.nodes) {
    const us = byNode.get(node.id) ?? 0;
    total += us;
    const f = node.callFrame;
    const name = `${f.functionName || '(anonymous)'}${f.url ? ` ${locate(f.url, f.lineNumber, f.columnNumber ?? 0)}` : ''}`;
    byName.set(name, (byName.get(name) ?? 0) + us);
  }
  return [...byName]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, us]) => ({ name, ms: Math.round(us / 1000), share: total > 0 ? us / total : 0 }));
}

/** A Locate that reads dist/'s source maps: `src/workload/runner.ts:202`, relative to `root`. */
export function sourceMapLocate(root: string): Locate {
  const maps = new Map<string, SourceMap | null>();
  return (url, line, column) => {
    if (!url.startsWith('file://')) return fromDist(url, line, column);
    const file = fileURLToPath(url);
    if (!maps.has(file)) {
      try {
        maps.set(file, new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8'))));
      } catch {
        maps.set(file, null);
      }
    }
    const entry = maps.get(file)?.findEntry(line, column) as { originalSource?: string; originalLine?: number } | undefined;
    if (!entry?.originalSource || entry.originalLine === undefined) return fromDist(url, line, column);
    const source = entry.originalSource.startsWith('file://')
      ? fileURLToPath(entry.originalSource)
      : resolve(dirname(file), entry.originalSource);
    return `${relative(root, source)}:${entry.originalLine + 1}`;
  };
}
