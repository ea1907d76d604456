import { loadConfig } from '../loader/config.js';
import { configDocuments, parseConfigSource } from '../loader/source.js';
import { checkRunLimits } from './limits.js';

/**
 * Check a config without running it: the same loading as `rowsim run` (and, when the config has an
 * estimate section, as `rowsim estimate`), the same limits (memory, sweep size, event budget). Bad
 * input throws InputError: main() prints it and exits with status 2.
 */
export function validateCommand(file: string, opts: { workers?: number; maxPoints?: number } = {}): number {
  // A file of several configs (rowsize and pg-check read them): each document is checked.
  const docs = configDocuments(file);
  for (const text of docs) validateDocument(file, docs.length > 1 ? text : undefined, opts);
  return 0;
}

function validateDocument(file: string, text: string | undefined, opts: { workers?: number; maxPoints?: number }): void {
  const { raw } = parseConfigSource(file, text);
  const hasEstimate =
    raw !== null && typeof raw === 'object' && !Array.isArray(raw) && (raw as Record<string, unknown>).estimate !== undefined;
  const cfg = loadConfig(file, text, { maxPoints: opts.maxPoints, estimate: hasEstimate ? {} : undefined });
  checkRunLimits(cfg, { workers: opts.workers });
  const parts: string[] = [];
  if (cfg.storage.length)
    parts.push(`${cfg.storage.length} storage point${cfg.storage.length > 1 ? 's' : ''} (${cfg.storage.map((p) => p.label).join('; ')})`);
  if (cfg.sections.contention) parts.push('a contention model');
  if (cfg.sections.estimate) parts.push(cfg.storage.length ? 'an estimate' : `an estimate for table ${cfg.sections.estimate.table.name}`);
  process.stdout.write(`${file}: ok: ${cfg.name}, ${parts.join(' and ')}\n`);
}
