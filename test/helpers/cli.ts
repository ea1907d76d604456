/** Run the built CLI (npm test builds dist/ first). */
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export function rowsim(args: string[], cwd = ROOT, env: Record<string, string> = {}): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin', 'rowsim.js'), ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 390_000,
    env: { ...process.env, ...env },
  });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** The terminal table's data rows (after the dashes), cells split where two spaces or more part them. */
export function terminalRows(stdout: string): string[][] {
  const lines = stdout.split('\n');
  const dashes = lines.findIndex((l) => /^-+(\s+-+)+$/.test(l));
  const rows: string[][] = [];
  for (const l of lines.slice(dashes + 1)) {
    if (!l.trim() || /^(\(|note:|results:)/.test(l)) break;
    rows.push(l.trim().split(/\s{2,}/));
  }
  return rows;
}
