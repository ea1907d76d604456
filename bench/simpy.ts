/**
 * SimPy beside rowsim: find a Python that can `import simpy` and run bench/simpy_repairman.py with
 * it. Debian's python3-simpy3 (SimPy 3.0.11) installs for /usr/bin/python3, while the `python3` first on
 * PATH may be another interpreter (pyenv, a virtualenv) without it: the one on PATH is tried first, then
 * /usr/bin/python3. When none can, the bench says so and prints no figure.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Sample } from './harness.js';
import { ROOT } from './paths.js';

export const SYSTEM_PYTHON = '/usr/bin/python3';
const SCRIPT = join(ROOT, 'bench', 'simpy_repairman.py');

/** The python3 a shell would run (the first executable one on PATH), then /usr/bin/python3; each once. */
export function pythonCandidates(path: string = process.env.PATH ?? '', system: string = SYSTEM_PYTHON): string[] {
  const out: string[] = [];
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, 'python3');
    try {
      accessSync(file, constants.X_OK);
      out.push(file);
      break;
    } catch {
      // not here
    }
  }
  out.push(system);
  const seen = new Set<string>();
  return out.filter((f) => {
    let key = f;
    try {
      key = realpathSync(f);
    } catch {
      // a missing file is still tried, and says so
    }
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export interface SimpyPython {
  path: string;
  simpy: string;
  python: string;
}

export interface SimpyProbe {
  found?: SimpyPython;
  /** Why each interpreter tried before (or instead of) the one found could not. */
  tried: { path: string; why: string }[];
}

const PROBE = 'import sys, simpy; print(simpy.__version__, sys.version.split()[0])';

/** Ask one interpreter for its SimPy and Python versions, or why it cannot say. */
export function probePython(path: string): SimpyPython | string {
  const r = spawnSync(path, ['-c', PROBE], { encoding: 'utf8', timeout: 30_000 });
  if (r.error) return (r.error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : r.error.message;
  if (r.status !== 0) {
    const lines = (r.stderr ?? '').trim().split('\n');
    return lines[lines.length - 1] || `exit status ${r.status}`;
  }
  const m = /^(\S+) (\S+)\s*$/.exec(r.stdout ?? '');
  return m ? { path, simpy: m[1]!, python: m[2]! } : `unexpected answer ${JSON.stringify((r.stdout ?? '').slice(0, 80))}`;
}

/** The first candidate that can import simpy, and why the ones before it could not. */
export function findSimpy(
  candidates: readonly string[] = pythonCandidates(),
  probe: (path: string) => SimpyPython | string = probePython,
): SimpyProbe {
  const tried: SimpyProbe['tried'] = [];
  for (const path of candidates) {
    const r = probe(path);
    if (typeof r !== 'string') return { found: r, tried };
    tried.push({ path, why: r });
  }
  return { tried };
}

/** The note of a line when no interpreter has SimPy. */
export function noSimpyNote(p: SimpyProbe): string {
  return `no python3 here can import simpy (${p.tried.map((t) => `${t.path}: ${t.why}`).join('; ')}); Debian: apt-get install python3-simpy3`;
}

export interface SimpyRun {
  /** Transactions completed in the measured window (after the warm-up). */
  transactions: number;
  throughput_tps: number;
  /** Simulated seconds of the window and of the warm-up before it. */
  simulated_s: number;
  warmup_s: number;
  sample: Sample;
}

/** One run of the SimPy model, `simulated` seconds of simulated time; its own timing of the model's run (no interpreter start-up). */
export function runSimpy(python: string, simulated: number): SimpyRun {
  const r = spawnSync(python, [SCRIPT, String(simulated)], { encoding: 'utf8', timeout: 600_000 });
  if (r.status !== 0) throw new Error(`${python} ${SCRIPT} failed (status ${r.status}): ${(r.stderr ?? '').trim().split('\n').pop()}`);
  const j = JSON.parse(r.stdout.trim()) as {
    transactions: number;
    throughput_tps: number;
    simulated_s: number;
    warmup_s: number;
    cpu_s: number;
    wall_s: number;
  };
  return {
    transactions: j.transactions,
    throughput_tps: j.throughput_tps,
    simulated_s: j.simulated_s,
    warmup_s: j.warmup_s,
    sample: { cpu: j.cpu_s, wall: j.wall_s },
  };
}
