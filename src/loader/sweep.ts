/**
 * Sweeps: every combination of the listed values is one storage point, resolved like the config itself,
 * with a problem under a swept key pointing at the sweep value that caused it.
 */
import { describeFound, keyPathString, nearest, type KeyPath } from '../config/errors.js';
import type { SweepPoint } from '../config/spec.js';
import { resolveStorage } from './storage.js';
import { Problems } from './problems.js';
import { pointLabelProblem } from '../config/limits.js';

/** Top-level keys under which a sweep may change values; `seed` itself may be swept too. */
const SWEEPABLE_ROOTS = ['table', 'engine', 'workload', 'cache', 'costs', 'seed'] as const;
/** Path segments that would reach an object's prototype instead of a config key. */
const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);

type SweepValues = Record<string, (string | number | boolean)[]>;

/**
 * Check the sweep before any point is built: every key a path of this config that may be swept (one
 * problem per bad path, not per value), a swept seed a valid seed, and no more points than `maxPoints`.
 */
export function checkSweep(obj: Record<string, unknown>, sweep: SweepValues, maxPoints: number, P: Problems): boolean {
  const before = P.list.length;
  let points = 1;
  for (const [key, values] of Object.entries(sweep)) {
    points *= values.length;
    const path = parseDotted(key);
    const at: KeyPath = ['sweep', key];
    if (!path) {
      P.add(at, `expected a key path such as engine.exp_row_size or workload[1].update.rows, found "${key}"`, true);
    } else if (path.some((seg) => typeof seg === 'string' && FORBIDDEN_SEGMENTS.has(seg))) {
      P.add(
        at,
        `expected a key path of the config, found "${key}" (${path.find((seg) => typeof seg === 'string' && FORBIDDEN_SEGMENTS.has(seg))} is not a config key)`,
        true,
      );
    } else if (!(SWEEPABLE_ROOTS as readonly (string | number)[]).includes(path[0]!)) {
      const guess = nearest(String(path[0]), SWEEPABLE_ROOTS);
      P.add(
        at,
        `expected a key under ${SWEEPABLE_ROOTS.slice(0, -1).join(', ')}, or seed, found "${key}"${path[0] === 'name' || path[0] === 'contention' || path[0] === 'sweep' || path[0] === 'estimate' ? ` (${path[0]} cannot be swept${path[0] === 'contention' ? '; contention takes lists directly and has its own sweep: contention.sweep' : ''})` : guess ? `; did you mean "${guess}"?` : ''}`,
        true,
      );
    } else if (path[0] === 'seed') {
      if (path.length > 1) P.add(at, `expected seed, found "${key}"`, true);
      values.forEach((v, i) => {
        if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > Number.MAX_SAFE_INTEGER)
          P.add([...at, i], `expected a seed: a whole number ≥ 0, found ${describeFound(v)}`);
      });
    } else if (!parentExists(obj, path)) {
      P.add(
        at,
        `expected a key path that exists in this config (its parent ${keyPathString(path.slice(0, -1))} is missing), found "${key}"`,
        true,
      );
    }
  }
  if (P.list.length > before) return false;
  if (points > maxPoints) {
    const sizes = Object.values(sweep)
      .map((v) => v.length)
      .join(' × ');
    P.add(['sweep'], `expected at most ${maxPoints} sweep points (raise the limit with --max-points N), found ${points} (${sizes})`, true);
    return false;
  }
  return true;
}

/** One resolved storage spec per sweep combination; a problem under a swept key points at its value. */
export function sweepPoints(
  obj: Record<string, unknown>,
  name: string,
  seed: number,
  baseDir: string,
  sweep: SweepValues,
  P: Problems,
): SweepPoint[] {
  const storage: SweepPoint[] = [];
  for (const combo of sweepCombinations(sweep)) {
    const pointRaw = structuredClone(obj);
    let pointSeed = seed;
    for (const [key, { value }] of Object.entries(combo)) {
      if (key === 'seed') pointSeed = value as number;
      else setAt(pointRaw, parseDotted(key)!, value);
    }
    const pointProblems = new Problems(P.loc);
    const spec = resolveStorage(pointRaw, name, pointSeed, baseDir, pointProblems);
    for (const prob of pointProblems.list) {
      let relocated = prob;
      for (const [key, { index }] of Object.entries(combo)) {
        if (prob.key === key || prob.key?.startsWith(`${key}.`) || prob.key?.startsWith(`${key}[`)) {
          relocated = { ...P.loc.problem(['sweep', key, index], prob.message), key: `sweep.${key}[${index}]` };
        }
      }
      P.push(relocated);
    }
    if (spec) {
      const params: Record<string, string | number | boolean> = Object.create(null);
      for (const [k, v] of Object.entries(combo)) params[k] = v.value;
      const label = pointLabel(params);
      const tooLong = pointLabelProblem(label);
      if (tooLong) P.add(['sweep'], tooLong, true);
      else storage.push({ label, params, spec });
    }
  }
  return storage;
}

function pointLabel(params: Record<string, string | number | boolean>): string {
  const parts = Object.entries(params).map(([k, v]) => `${k.split('.').pop()}=${v}`);
  return parts.length ? parts.join(', ') : 'base';
}

type Combo = Record<string, { value: string | number | boolean; index: number }>;

function sweepCombinations(sweep: Record<string, (string | number | boolean)[]>): Combo[] {
  let combos: Combo[] = [{}];
  for (const [key, values] of Object.entries(sweep)) {
    const next: Combo[] = [];
    for (const c of combos) values.forEach((value, index) => next.push({ ...c, [key]: { value, index } }));
    combos = next;
  }
  return combos;
}

/** `engine.exp_row_size` or `workload[1].update.rows` → key path. */
function parseDotted(key: string): KeyPath | undefined {
  const path: (string | number)[] = [];
  for (const part of key.split('.')) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)((?:\[\d+\])*)$/.exec(part);
    if (!m) return undefined;
    path.push(m[1]!);
    for (const idx of m[2]!.matchAll(/\[(\d+)\]/g)) path.push(Number(idx[1]));
  }
  return path;
}

/** Does the parent of the node at `path` exist (own keys only, never a prototype's)? */
function parentExists(obj: unknown, path: KeyPath): boolean {
  let node = obj;
  for (let i = 0; i < path.length - 1; i++) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, path[i]!)) return false;
    node = (node as Record<string | number, unknown>)[path[i]!];
  }
  return node !== null && typeof node === 'object';
}

/** Set the node at `path` (its parent exists: checked by parentExists). */
function setAt(obj: unknown, path: KeyPath, value: unknown): void {
  let node = obj as Record<string | number, unknown>;
  for (let i = 0; i < path.length - 1; i++) node = node[path[i]!] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = value;
}
