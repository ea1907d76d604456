import { configDocuments, loadConfig, parseConfigSource } from '../config/load.js';
import { loadEstimateConfig } from '../estimate/config.js';
import { checkRunLimits } from './limits.js';

/**
 * Check a config without running it. A config whose storage part is only for `rowsim estimate`
 * (measured data instead of a workload) is checked as the estimate would read it. Bad input throws
 * InputError: main() prints it and exits with status 2.
 */
export function validateCommand(file: string, opts: { workers?: number; maxPoints?: number } = {}): number {
  // A file of several configs (rowsize and pg-check read them): each document is checked.
  const docs = configDocuments(file);
  for (const text of docs) validateDocument(file, docs.length > 1 ? text : undefined, opts);
  return 0;
}

function validateDocument(file: string, text: string | undefined, opts: { workers?: number; maxPoints?: number }): void {
  const { raw } = parseConfigSource(file, text);
  const obj = (raw ?? {}) as Record<string, unknown>;
  const parts: string[] = [];
  let name: string;
  if (obj.estimate !== undefined && obj.workload === undefined) {
    const est = loadEstimateConfig(file, {}, text);
    name = est.name;
    parts.push(`an estimate for table ${est.table.name}`);
  } else {
    const cfg = loadConfig(file, text, { maxPoints: opts.maxPoints });
    checkRunLimits(cfg, { workers: opts.workers });
    name = cfg.name;
    if (cfg.storage.length) {
      parts.push(`${cfg.storage.length} storage point${cfg.storage.length > 1 ? 's' : ''} (${cfg.storage.map((p) => p.label).join('; ')})`);
    }
    if (cfg.sections.contention) parts.push('a contention model');
    if (obj.estimate !== undefined) {
      loadEstimateConfig(file, {}, text);
      parts.push('an estimate');
    }
  }
  process.stdout.write(`${file}: ok: ${name}, ${parts.join(' and ')}\n`);
}
