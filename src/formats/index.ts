/** The registry of storage formats. */
import type { FormatId } from '../config/schema.js';
import { aseApl, aseDol } from './ase.js';
import type { Format } from './types.js';

const FORMATS: Partial<Record<FormatId, Format>> = {
  'ase-dol': aseDol,
  'ase-apl': aseApl,
};

export function registerFormat(format: Format): void {
  FORMATS[format.id] = format;
}

export function getFormat(id: FormatId): Format | undefined {
  return FORMATS[id];
}

export function availableFormats(): FormatId[] {
  return Object.keys(FORMATS) as FormatId[];
}
