/**
 * V8's inlining budget for rowsim's large runs.
 *
 * The page engines' hot paths are chains of small methods (the runner's update loop, the engine's
 * update, its free-space search, the format's row size). V8's optimising compiler inlines callees into
 * a function until their bytecode adds up to 920 bytes (`--max-inlined-bytecode-size-cumulative`); past
 * that it calls them, and which ones it leaves out changes with every edit. With 2,000 bytes a warm
 * process ran the storage bench's inserts 10–17% and its updates 6–19% faster, formats and orders alike;
 * but compiling more costs CPU first: one run of 1,000,000 rows took the same CPU time either way (within
 * 3%), a run of 1e7 rows 4–10% less, and the quickstart's 5 small points 5% more (docs/performance.md).
 * So the budget is given to a process that plans WIDE_INLINING_MIN_ROW_OPS row operations or more
 * (`rowsim run`: every sweep point of the run, or of its shard). Results do not depend on it: the
 * compiler decides how fast code runs, never what it computes.
 *
 * A V8 flag cannot come through NODE_OPTIONS, so the process sets it before its hot code is compiled
 * (V8's flags are the process's: its worker threads have it too). ROWSIM_INLINING: `auto` (the default,
 * as above), `wide` (every command, whatever its size) or `v8` (V8's own budget). A
 * `node --max-inlined-bytecode-size-cumulative=N` given by hand is kept as it is.
 */
import { setFlagsFromString } from 'node:v8';
import { UserError } from '../config/errors.js';

/** Bytes of bytecode the optimising compiler may inline into one function, in all (V8's default: 920). */
export const INLINE_BUDGET_BYTES = 2000;

/** Planned row operations from which a process compiles with INLINE_BUDGET_BYTES (ROWSIM_INLINING=auto). */
export const WIDE_INLINING_MIN_ROW_OPS = 10_000_000;

const FLAG = '--max-inlined-bytecode-size-cumulative';

/** The V8 versions known to have the flag (Node.js 18 to 24); another could print an error for an unknown flag. */
const KNOWN_V8_MAJORS = [10, 11, 12, 13];

export interface CompilerContext {
  env: NodeJS.ProcessEnv;
  /** Node.js's own options (process.execArgv). */
  execArgv: readonly string[];
  /** process.versions.v8 */
  v8: string;
  setFlags: (flags: string) => void;
}

const processContext = (): CompilerContext => ({
  env: process.env,
  execArgv: process.execArgv,
  v8: process.versions.v8,
  setFlags: setFlagsFromString,
});

type Setting = 'auto' | 'wide' | 'v8';

/** ROWSIM_INLINING: `auto` (the default), `wide` or `v8`; anything else is an error (exit 2). */
export function inliningSetting(env: NodeJS.ProcessEnv = process.env): Setting {
  const v = (env.ROWSIM_INLINING ?? '').trim().toLowerCase();
  if (v === '' || v === 'auto') return 'auto';
  if (v === 'wide' || v === 'v8') return v;
  throw new UserError(
    `ROWSIM_INLINING: expected auto (rowsim's inlining budget for runs of ${WIDE_INLINING_MIN_ROW_OPS.toLocaleString('en-US')} row operations or more, the default), wide (always) or v8 (V8's own), found ${JSON.stringify(env.ROWSIM_INLINING)}`,
  );
}

const givenToNode = (execArgv: readonly string[]) => execArgv.some((a) => a === FLAG || a.startsWith(`${FLAG}=`));
const knownV8 = (v8: string) => KNOWN_V8_MAJORS.includes(Number(v8.split('.')[0]));

/**
 * Give the compiler rowsim's inlining budget when the process plans `rowOperations` row operations or
 * more (or ROWSIM_INLINING=wide), unless ROWSIM_INLINING=v8 or the flag was given to node. Returns
 * whether it did. A bad ROWSIM_INLINING is an error (exit 2).
 */
export function tuneCompiler(rowOperations: number, ctx: CompilerContext = processContext()): boolean {
  const setting = inliningSetting(ctx.env);
  if (setting === 'v8' || (setting === 'auto' && !(rowOperations >= WIDE_INLINING_MIN_ROW_OPS))) return false;
  if (givenToNode(ctx.execArgv) || !knownV8(ctx.v8)) return false;
  ctx.setFlags(`${FLAG}=${INLINE_BUDGET_BYTES}`);
  return true;
}

/** The rule a process started with this context follows, in words (npm run bench prints it). */
export function describeInlining(ctx: CompilerContext = processContext()): string {
  if (givenToNode(ctx.execArgv)) return `the inlining budget given to node (${FLAG})`;
  if (!knownV8(ctx.v8)) return `V8's own inlining budget (V8 ${ctx.v8} is not one rowsim knows the flag of)`;
  const setting = inliningSetting(ctx.env);
  if (setting === 'v8') return "V8's own inlining budget (ROWSIM_INLINING=v8)";
  if (setting === 'wide') return `an inlining budget of ${INLINE_BUDGET_BYTES} bytes in every process (ROWSIM_INLINING=wide)`;
  return `an inlining budget of ${INLINE_BUDGET_BYTES} bytes in a process of ${WIDE_INLINING_MIN_ROW_OPS.toLocaleString('en-US')} row operations or more, V8's own (920) below (ROWSIM_INLINING)`;
}
