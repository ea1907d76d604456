/**
 * A replication's history and its batch means, from the commits the simulator counted (sim-window.ts):
 * when it collapsed (first held below COLLAPSE share of the bound), how long each state lasted, how often
 * it changed; and the window's throughput in equal batches. Pure.
 */

/** A state change counts once the new state has held this many buckets in a row (a bucket is 1/100 of warm-up + window). */
const HOLD_BUCKETS = 3;

export interface History {
  /** Simulated time from the start (all users thinking) to the first collapse that held, ms; null if it never collapsed. */
  first_collapse_ms: number | null;
  /** The longest stretch in each state, ms (a stretch still open at the end counts to the end). */
  longest_collapsed_ms: number;
  longest_running_ms: number;
  /** State changes that held (running → collapsed → …). */
  switches: number;
  /** The end of the history (the window's end), ms. */
  end_ms: number;
  /** The state at the end. */
  ends_collapsed: boolean;
}

/** The history of commit counts per bucket against a collapse threshold in tps. */
export function historyOf(trace: readonly number[], bucketNs: number, collapseTps: number): History {
  const threshold = (collapseTps * bucketNs) / 1e9; // commits a bucket
  let state = false; // running: the idle start fills up at the users' pace
  let since = 0;
  let streak = 0;
  let first: number | null = null;
  let switches = 0;
  const longest = { run: 0, col: 0 };
  const close = (end: number): void => {
    const len = end - since;
    if (state) longest.col = Math.max(longest.col, len);
    else longest.run = Math.max(longest.run, len);
  };
  for (let b = 0; b < trace.length; b++) {
    const collapsed = trace[b]! < threshold;
    if (collapsed === state) {
      streak = 0;
      continue;
    }
    if (++streak < HOLD_BUCKETS) continue;
    const at = b - HOLD_BUCKETS + 1;
    close(at);
    state = collapsed;
    since = at;
    streak = 0;
    switches++;
    if (state && first === null) first = at;
  }
  close(trace.length);
  const ms = (buckets: number): number => Number(((buckets * bucketNs) / 1e6).toPrecision(4));
  return {
    first_collapse_ms: first === null ? null : ms(first),
    longest_collapsed_ms: ms(longest.col),
    longest_running_ms: ms(longest.run),
    switches,
    end_ms: ms(trace.length),
    ends_collapsed: state,
  };
}
