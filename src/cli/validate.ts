import { resolve } from 'node:path';
import { UserError } from '../config/errors.js';
import { outputPathProblem } from '../config/limits.js';
import { checkedSections, loadConfig } from '../loader/config.js';
import { parseConfigSource } from '../loader/source.js';
import { checkRunLimits } from './limits.js';

/**
 * Check a config without running it: the same reading and limits as `rowsim run` (one YAML document,
 * src/config/limits.ts, memory, sweep size, event budget, the default output folder's path) and, when
 * the config has an estimate section, the loading of `rowsim estimate`. Bad input throws InputError or
 * UserError: main() prints it and exits with status 2.
 */
export function validateCommand(file: string, opts: { workers?: number; maxPoints?: number } = {}): number {
  const source = parseConfigSource(file);
  const cfg = loadConfig(file, undefined, { maxPoints: opts.maxPoints, source, ...checkedSections(source.raw, true) });
  checkRunLimits(cfg, { workers: opts.workers });
  const out = outputPathProblem(resolve('out', cfg.name));
  if (out) throw new UserError(`--out out/${cfg.name}: ${out}`);
  const parts: string[] = [];
  if (cfg.storage.length)
    parts.push(`${cfg.storage.length} storage point${cfg.storage.length > 1 ? 's' : ''} (${cfg.storage.map((p) => p.label).join('; ')})`);
  if (cfg.sections.contention) parts.push('a contention model');
  if (cfg.sections.estimate) parts.push(cfg.storage.length ? 'an estimate' : `an estimate for table ${cfg.sections.estimate.table.name}`);
  process.stdout.write(`${file}: ok: ${cfg.name}, ${parts.join(' and ')}\n`);
  return 0;
}
