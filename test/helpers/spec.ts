/** Building blocks for tests: tables, engine specs and storage specs without YAML. */
import type { ColumnDef, EngineSpec, PhaseSpec, StorageSpec, TableDef } from '../../src/config/spec.js';
import { parseType } from '../../src/schema/types.js';

export function col(name: string, type: string, nullable = false): ColumnDef {
  return { name, type: parseType(type), nullable };
}

export function table(columns: ColumnDef[], indexes: TableDef['indexes'] = []): TableDef {
  return { name: 't', columns, indexes };
}

export function engine(overrides: Partial<EngineSpec> = {}): EngineSpec {
  return {
    format: 'ase-dol',
    page_size: 2048,
    exp_row_size: 1,
    default_exp_row_size_percent: 5,
    exp_row_size_basis: 'physical',
    compaction: 'on',
    fillfactor: 100,
    pctfree: 10,
    pctused: 40,
    encoding: 'latin1',
    multibyte_share: 0,
    ignored: [],
    ...overrides,
  };
}

export function storage(t: TableDef, e: EngineSpec, workload: PhaseSpec[], seed = 7): StorageSpec {
  return { name: 'test', seed, table: t, engine: e, workload };
}
