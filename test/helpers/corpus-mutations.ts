/**
 * Generated bad inputs: the valid sim-configs, shrunk so a run takes about a second, then mutated
 * once each by fast-check with a fixed seed (the same set every run). A mutation can happen to give a
 * valid config, so the test accepts exit 0 or 2 for these, but never a stack trace, exit 1, a hang or a
 * partial output folder.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { isScalar, parseAllDocuments, stringify, visit } from 'yaml';
import { ROOT } from './cli.js';

export const MUTATION_SEED = 20_240_611;
export const MUTATION_COUNT = 60;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Path = (string | number)[];

export interface Base {
  file: string;
  command: 'run' | 'estimate';
  config: { [k: string]: Json };
}

export interface Mutant {
  id: string;
  base: string;
  command: 'run' | 'estimate';
  what: string;
  text: string;
}

const clone = <T>(v: T): T => structuredClone(v);

/** The first document of each sim-config, made small: few rows, two sweep values, short contention runs. */
export function shrunkBases(): Base[] {
  const dir = join(ROOT, 'sim-configs');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => {
      const doc = parseAllDocuments(readFileSync(join(dir, file), 'utf8'));
      const first = Array.isArray(doc) ? doc[0]! : doc;
      // `null: true` is a key in the config format (as src/config/load.ts reads it), not the null value.
      visit(first, {
        Pair(_, pair) {
          if (isScalar(pair.key) && pair.key.value === null) pair.key.value = pair.key.source || 'null';
        },
      });
      const config = first.toJS() as { [k: string]: Json };
      const workload = config.workload;
      if (Array.isArray(workload)) {
        for (const phase of workload) {
          const ins = (phase as { insert?: { rows?: Json } }).insert;
          if (ins && typeof ins.rows === 'number' && ins.rows > 2000) ins.rows = 2000;
        }
      }
      const sweep = config.sweep;
      if (sweep && typeof sweep === 'object' && !Array.isArray(sweep)) {
        for (const k of Object.keys(sweep)) {
          const v = sweep[k];
          if (Array.isArray(v)) sweep[k] = v.slice(0, 2);
        }
      }
      const c = config.contention as { [k: string]: Json } | undefined;
      if (c) {
        c.duration = '20ms';
        c.warmup = '5ms';
        const cap = (v: Json, max: number): Json =>
          Array.isArray(v)
            ? v.slice(0, 2).map((x) => (typeof x === 'number' ? Math.min(x, max) : x))
            : typeof v === 'number'
              ? Math.min(v, max)
              : v;
        c.users = cap(c.users!, 200);
        c.engines = cap(c.engines!, 16);
        // Replications and a phase-diagram sweep multiply the points: keep two of each.
        if (typeof c.replications === 'number') c.replications = Math.min(c.replications, 2);
        const cs = c.sweep;
        if (cs && typeof cs === 'object' && !Array.isArray(cs))
          for (const k of Object.keys(cs)) if (Array.isArray(cs[k])) cs[k] = (cs[k] as Json[]).slice(0, 2);
      }
      const e = config.estimate as { [k: string]: Json } | undefined;
      if (e) {
        e.seeds = 2;
        e.sample_rows = 1000;
        if (typeof e.rows === 'number') e.rows = 5000;
      }
      return { file, command: e ? 'estimate' : 'run', config } satisfies Base;
    });
}

function paths(v: Json, at: Path = []): Path[] {
  const out: Path[] = [];
  if (Array.isArray(v)) v.forEach((x, i) => out.push([...at, i], ...paths(x, [...at, i])));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push([...at, k], ...paths(x, [...at, k]));
  return out;
}

function get(root: Json, path: Path): Json {
  let n: Json = root;
  for (const s of path) n = (n as Record<string | number, Json>)[s]!;
  return n;
}

function parentOf(root: Json, path: Path): Record<string | number, Json> {
  return get(root, path.slice(0, -1)) as Record<string | number, Json>;
}

const show = (p: Path) =>
  p
    .map((s) => (typeof s === 'number' ? `[${s}]` : `.${s}`))
    .join('')
    .replace(/^\./, '');

const KINDS = ['wrong-type', 'rename-key', 'delete-key', 'add-key', 'out-of-range'] as const;
const WRONG: Record<string, Json[]> = {
  number: ['abc', [1, 2], { x: 1 }, true, null, '12 parsecs'],
  string: [42, ['a'], { x: 1 }, false, null, -3],
  boolean: ['maybe', 7, null],
  object: ['text', 5, [], null],
  null: ['x', 3, [1]],
};
const OUT_OF_RANGE: Json[] = [-1, -1000, 0, 2.5, 1e12, 1e300, -0.5];

/** Apply one mutation, chosen by the numbers fast-check drew. Returns undefined when it does not apply. */
function mutate(base: Base, kind: (typeof KINDS)[number], pick: number, alt: number): { config: Json; what: string } | undefined {
  const config = clone(base.config) as Json;
  const all = paths(config);
  const keyPaths = all.filter((p) => typeof p[p.length - 1] === 'string');
  const typeOf = (v: Json) => (v === null ? 'null' : Array.isArray(v) ? 'object' : typeof v);
  switch (kind) {
    case 'wrong-type': {
      const p = all[pick % all.length]!;
      const old = get(config, p);
      const choices = WRONG[typeOf(old)]!;
      const value = choices[alt % choices.length]!;
      parentOf(config, p)[p[p.length - 1]!] = value;
      return { config, what: `${show(p)}: ${JSON.stringify(old)?.slice(0, 40)} → ${JSON.stringify(value)}` };
    }
    case 'rename-key': {
      const p = keyPaths[pick % keyPaths.length]!;
      const key = p[p.length - 1] as string;
      const at = alt % (key.length + 1);
      const letters = 'abcdefghijklmnopqrstuvwxyz_';
      const ch = letters[alt % letters.length]!;
      const edits = [
        key.slice(0, at) + key.slice(at + 1), // delete
        key.slice(0, at) + ch + key.slice(at), // insert
        key.slice(0, at) + ch + key.slice(at + 1), // substitute
      ];
      const renamed = edits.find((e, i) => i >= alt % 3 && e !== key && e !== '') ?? `${key}x`;
      const parent = parentOf(config, p) as { [k: string]: Json };
      const entries = Object.entries(parent).map(([k, v]) => [k === key ? renamed : k, v] as const);
      for (const k of Object.keys(parent)) delete parent[k];
      for (const [k, v] of entries) parent[k] = v;
      return { config, what: `rename ${show(p)} → ${renamed}` };
    }
    case 'delete-key': {
      const p = keyPaths[pick % keyPaths.length]!;
      delete parentOf(config, p)[p[p.length - 1]!];
      return { config, what: `delete ${show(p)}` };
    }
    case 'add-key': {
      const maps = [
        [] as Path,
        ...all.filter((p) => {
          const v = get(config, p);
          return v !== null && typeof v === 'object' && !Array.isArray(v);
        }),
      ];
      const p = maps[pick % maps.length]!;
      const key = ['colour', 'pages_per_extent', 'verbose', 'retries', 'exp_rowsize', 'nullable'][alt % 6]!;
      (get(config, p) as { [k: string]: Json })[key] = alt % 2 ? 1 : 'yes';
      return { config, what: `add ${show([...p, key])}` };
    }
    case 'out-of-range': {
      const nums = all.filter((p) => typeof get(config, p) === 'number');
      if (nums.length === 0) return undefined;
      const p = nums[pick % nums.length]!;
      const old = get(config, p);
      const value = OUT_OF_RANGE[alt % OUT_OF_RANGE.length]!;
      if (value === old) return undefined;
      parentOf(config, p)[p[p.length - 1]!] = value;
      return { config, what: `${show(p)}: ${old} → ${value}` };
    }
  }
}

/** MUTATION_COUNT mutants, the same every run (fixed seed). */
export function mutants(): Mutant[] {
  const bases = shrunkBases();
  const arb = fc.record({
    base: fc.nat({ max: bases.length - 1 }),
    kind: fc.constantFrom(...KINDS),
    pick: fc.nat({ max: 1_000_000 }),
    alt: fc.nat({ max: 1_000_000 }),
  });
  const out: Mutant[] = [];
  const seen = new Set<string>();
  for (const d of fc.sample(arb, { seed: MUTATION_SEED, numRuns: MUTATION_COUNT * 4 })) {
    if (out.length >= MUTATION_COUNT) break;
    const base = bases[d.base]!;
    const m = mutate(base, d.kind, d.pick, d.alt);
    if (!m) continue;
    const text = stringify(m.config, { aliasDuplicateObjects: false });
    if (seen.has(text)) continue;
    seen.add(text);
    const id = `gen-${String(out.length + 1).padStart(2, '0')}`;
    out.push({
      id,
      base: base.file,
      command: base.command,
      what: `${d.kind}: ${m.what}`,
      text: `# generated ${id} from sim-configs/${base.file}: ${d.kind}: ${m.what}\n${text}`,
    });
  }
  return out;
}

export function baseText(b: Base): string {
  return stringify(b.config, { aliasDuplicateObjects: false });
}
