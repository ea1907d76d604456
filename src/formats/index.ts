/** The registry of storage formats. */
import type { FormatId } from '../config/schema.js';
import { aseApl, aseDol } from './ase.js';
import { oracleHeap } from './oracle.js';
import { postgresHeap } from './postgres.js';
import { sqlserverHeap } from './sqlserver.js';
import type { Format } from './types.js';

const FORMATS: Partial<Record<FormatId, Format>> = {
  'ase-dol': aseDol,
  'ase-apl': aseApl,
  'sqlserver-heap': sqlserverHeap,
  'postgres-heap': postgresHeap,
  'oracle-heap': oracleHeap,
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
