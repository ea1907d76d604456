/**
 * A format of the test tree alone (src/formats/README.md, "adding a format"): a toy heap whose one setting,
 * toy_gap, is the share of each block kept free for rows to grow, stated in its DDL as `TOYGAP N`, with a
 * column type of its own (toyint, four bytes). Its pages are Oracle's heap blocks: only what a format
 * module declares is its own.
 */
import type { SettingsOf, Zod } from '../../src/config/format-ids.js';
import type { EngineSpec, StorageSpec } from '../../src/config/spec.js';
import type { ReserveKnob, StorageFormat } from '../../src/formats/format.js';
import { oracleHeap } from '../../src/formats/oracle.js';
import type { DdlClauses } from '../../src/config/ddl-clauses.js';

const toySettings = (z: Zod) => ({
  toy_gap: z.number().int().min(0).max(90).optional(),
});

const toyDdl: DdlClauses = {
  words: { TOYGAP: { kind: 'setting', key: 'toy_gap', min: 0, max: 90, engine: true, sign: 'TOYGAP' } },
};

declare module '../../src/config/format-ids.js' {
  interface DbmsIds {
    toy: true;
  }
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

/** The toy's reserve knob: toy_gap 0..90, in % of the block, set with `ALTER TABLE t TOYGAP N`. */
function toyGapKnob(): ReserveKnob {
  return {
    format: 'toy-heap' as ReserveKnob['format'],
    key: 'toy_gap' as ReserveKnob['key'],
    min: 0,
    max: 90,
    moreReserveWhenLarger: true,
    specials: [
      { name: 'pack', setting: 0, value: 0, label: '0 (pack fully)' },
      { name: 'default', setting: 10, value: 10, label: '10 (default)' },
    ],
    engineWith: (base, setting) => ({ ...base, format: 'toy-heap', toy_gap: Number(setting) }) as EngineSpec,
    commands: (table, value) => ({ commands: [`ALTER TABLE ${table} TOYGAP ${value};`], note: 'only blocks used from now on' }),
    movedWord: 'migrated',
    movedMetric: 'forwarded_rows',
  };
}

/** One entry per group of StorageFormat: the toy borrows Oracle's groups and wraps what reads its setting. */
export const toyHeap: StorageFormat = {
  ...oracleHeap,
  id: 'toy-heap' as StorageFormat['id'],
  dbms: 'toy',
  dbmsName: 'Toy DBMS',
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
  resolve: (engine, layout) => {
    const { pctfree, ...blocks } = oracleHeap.resolve(asBlocks(engine), layout);
    return { ...blocks, format: 'toy-heap', toy_gap: pctfree! };
  },
  notes: (engine, resolved) => oracleHeap.notes(asBlocks(engine), resolved),
  rows: {
    ...oracleHeap.rows,
    layout: (table, engine) => oracleHeap.rows.layout(table, asBlocks(engine)),
    constantLayout: (table, engine, constant) => oracleHeap.rows.constantLayout!(table, asBlocks(engine), constant),
  },
  pages: {
    ...oracleHeap.pages,
    pageAnatomy: (layout, engine) => oracleHeap.pages.pageAnatomy(layout, asBlocks(engine)),
    createEngine: (layout, resolved, spec, rows) => oracleHeap.pages.createEngine(layout, resolved, specAsBlocks(spec), rows),
  },
  allocation: { ...oracleHeap.allocation, outOfLine: undefined },
  knob: { reserveKnob: toyGapKnob, reserveSetting: 'toy_gap', reserveUnit: '%' },
};
