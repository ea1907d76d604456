import { loadConfig, parseConfigSource } from '../config/load.js';
import { loadEstimateConfig } from '../estimate/config.js';

/**
 * Check a config without running it. A config whose storage part is only for `rowsim estimate`
 * (measured data instead of a workload) is checked as the estimate would read it. Bad input throws
 * InputError: main() prints it and exits with status 2.
 */
export function validateCommand(file: string): number {
  const { raw } = parseConfigSource(file);
  const obj = (raw ?? {}) as Record<string, unknown>;
  const parts: string[] = [];
  let name: string;
  if (obj.estimate !== undefined && obj.workload === undefined) {
    const est = loadEstimateConfig(file);
    name = est.name;
    parts.push(`an estimate for table ${est.table.name}`);
  } else {
    const cfg = loadConfig(file);
    name = cfg.name;
    if (cfg.storage.length) {
      parts.push(`${cfg.storage.length} storage point${cfg.storage.length > 1 ? 's' : ''} (${cfg.storage.map((p) => p.label).join('; ')})`);
    }
    if (cfg.sections.contention) parts.push('a contention model');
    if (obj.estimate !== undefined) {
      loadEstimateConfig(file);
      parts.push('an estimate');
    }
  }
  process.stdout.write(`${file}: ok: ${name}, ${parts.join(' and ')}\n`);
  return 0;
}
