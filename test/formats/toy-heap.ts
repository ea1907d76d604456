/**
 * A format of the test tree alone (src/formats/README.md, "adding a format"): a toy heap whose one setting,
 * toy_gap, is the share of each block kept free for rows to grow, stated in its DDL as `TOYGAP N`, with a
 * column type of its own (toyint, four bytes). Its pages are Oracle's heap blocks: only what a format
 * module declares is its own.
 */
import type { SettingsOf, Zod } from '../../src/config/format-ids.js';
import type { EngineSpec, StorageSpec } from '../../src/config/spec.js';
import type { StorageFormat } from '../../src/formats/format.js';
import { oracleHeap } from '../../src/formats/oracle.js';
import type { DdlClauses } from '../../src/config/ddl-clauses.js';

const toySettings = (z: Zod) => ({
  toy_gap: z.number().int().min(0).max(90).optional(),
});

const toyDdl: DdlClauses = {
  words: { TOYGAP: { kind: 'setting', key: 'toy_gap', min: 0, max: 90, engine: true, sign: 'TOYGAP' } },
};

declare module '../../src/config/format-ids.js' {
  interface FormatIds {
    'toy-heap': true;
  }
  interface FormatSettings extends SettingsOf<typeof toySettings> {}
  interface DdlTableOptions {
    /** The toy's `TOYGAP N`. */
    toy_gap?: DdlSetting<number>;
  }
}

/** The toy's settings as the blocks it borrows read them: toy_gap is their PCTFREE. */
const asBlocks = (engine: EngineSpec): EngineSpec => ({ ...engine, pctfree: (engine as unknown as { toy_gap: number }).toy_gap });
const specAsBlocks = (spec: StorageSpec): StorageSpec => ({ ...spec, engine: asBlocks(spec.engine) });

export const toyHeap: StorageFormat = {
  ...oracleHeap,
  id: 'toy-heap' as StorageFormat['id'],
  dbms: 'toy' as StorageFormat['dbms'],
  title: 'Toy heap (toy_gap)',
  evidence: [],
  settingsShape: toySettings,
  settings: [
    'page_size',
    'toy_gap',
    'pctused',
    'initrans',
    'encoding',
    'multibyte_share',
    'multibyte_widths',
    'compaction',
  ] as StorageFormat['settings'],
  defaults: { ...oracleHeap.defaults, toy_gap: 10 } as StorageFormat['defaults'],
  ddl: toyDdl,
  columnTypes: { toyint: { family: 'int', params: 'none' } },
  layout: (table, engine) => oracleHeap.layout(table, asBlocks(engine)),
  constantLayout: (table, engine, constant) => oracleHeap.constantLayout!(table, asBlocks(engine), constant),
  resolve: (engine, layout) => oracleHeap.resolve(asBlocks(engine), layout),
  notes: (engine, resolved) => oracleHeap.notes(asBlocks(engine), resolved),
  pageAnatomy: (layout, engine) => oracleHeap.pageAnatomy(layout, asBlocks(engine)),
  createEngine: (layout, resolved, spec, rows) => oracleHeap.createEngine(layout, resolved, specAsBlocks(spec), rows),
  outOfLine: undefined,
  reserveKnob: undefined,
  noKnob: 'expected a format with a reserve knob, found toy-heap, whose toy_gap the estimator does not tune',
  reserveSetting: 'toy_gap',
};
