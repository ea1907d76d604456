/** Building blocks for tests: tables, engine specs and storage specs without YAML. */
import type { ColumnDef, EngineSpec, PhaseSpec, StorageSpec, TableDef } from '../../src/config/spec.js';
import { parseType } from '../../src/config/column-types.js';
import { defaultEngineSpec } from '../../src/formats/registry.js';

export function col(name: string, type: string, nullable = false): ColumnDef {
  return { name, type: parseType(type), nullable };
}

export function table(columns: ColumnDef[], indexes: TableDef['indexes'] = []): TableDef {
  return { name: 't', columns, indexes };
}

export function engine(overrides: Partial<EngineSpec> = {}): EngineSpec {
  return defaultEngineSpec(overrides.format ?? 'ase-dol', { exp_row_size: 1, ...overrides });
}

export function storage(t: TableDef, e: EngineSpec, workload: PhaseSpec[], seed = 7): StorageSpec {
  return { name: 'test', seed, table: t, engine: e, workload };
}
