import { InputError } from '../config/errors.js';
import { loadConfig } from '../config/load.js';

export function validateCommand(file: string): number {
  try {
    const cfg = loadConfig(file);
    const parts: string[] = [];
    if (cfg.storage.length) {
      parts.push(`${cfg.storage.length} storage point${cfg.storage.length > 1 ? 's' : ''} (${cfg.storage.map((p) => p.label).join('; ')})`);
    }
    if (cfg.sections.contention) parts.push('a contention model');
    process.stdout.write(`${file}: ok: ${cfg.name}, ${parts.join(' and ')}\n`);
    return 0;
  } catch (err) {
    if (err instanceof InputError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    throw err;
  }
}
