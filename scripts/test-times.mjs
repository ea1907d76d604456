// The test files' times from vitest's JUnit report, against their budgets: the slowest files, and every
// file over its budget (test/budgets.json: seconds a file may take on a quiet 2-core machine; files not
// named there get its "default"). Prints a table; exits 0 either way (a budget is a signal, not a gate),
// unless --strict is given, then 1 when a file is over.
//   node scripts/test-times.mjs out/junit.xml [--top N] [--strict]
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const file = args.find((a) => !a.startsWith('--')) ?? join(root, 'out', 'junit.xml');
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 12;
const strict = args.includes('--strict');

let xml;
try {
  xml = readFileSync(file, 'utf8');
} catch (err) {
  process.stdout.write(`test times: no JUnit report at ${file} (${err.code ?? err.message})\n`);
  process.exit(0);
}
const budgets = JSON.parse(readFileSync(join(root, 'test', 'budgets.json'), 'utf8'));

/** Each <testsuite> (vitest writes one a test file): its name, time in seconds, tests and failures. */
const suites = [];
for (const m of xml.matchAll(/<testsuite\s([^>]*)>/g)) {
  const attr = (name) => new RegExp(`\\b${name}="([^"]*)"`).exec(m[1])?.[1];
  suites.push({ name: attr('name'), seconds: Number(attr('time')), tests: Number(attr('tests')), failures: Number(attr('failures') ?? 0) });
}
// A file can stand in two projects' reports (it does not here); their times add up.
const byFile = new Map();
for (const s of suites) {
  const prev = byFile.get(s.name);
  byFile.set(s.name, prev ? { ...s, seconds: prev.seconds + s.seconds, tests: prev.tests + s.tests } : s);
}
const rows = [...byFile.values()].map((s) => ({ ...s, budget: budgets.files?.[s.name] ?? budgets.default }));
const over = rows.filter((r) => r.seconds > r.budget).sort((a, b) => b.seconds / b.budget - a.seconds / a.budget);
const slowest = [...rows].sort((a, b) => b.seconds - a.seconds).slice(0, top);

const total = rows.reduce((s, r) => s + r.seconds, 0);
const tests = rows.reduce((s, r) => s + r.tests, 0);
const line = (r) =>
  `${r.name.padEnd(42)} ${r.seconds.toFixed(1).padStart(7)} s ${String(r.budget).padStart(5)} s ${String(r.tests).padStart(5)}${r.seconds > r.budget ? '  OVER' : ''}`;
const head = `${'file'.padEnd(42)} ${'time'.padStart(9)} ${'budget'.padStart(7)} ${'tests'.padStart(5)}`;
const out = [
  `test times (${file}): ${rows.length} files, ${tests} tests, ${total.toFixed(0)} s of test-file time in all`,
  `slowest ${slowest.length}:`,
  head,
  ...slowest.map(line),
];
if (over.length) out.push(`over budget (${over.length}; budgets in test/budgets.json):`, head, ...over.map(line));
else out.push('no file over its budget');
process.stdout.write(`${out.join('\n')}\n`);
process.exitCode = strict && over.length ? 1 : 0;
