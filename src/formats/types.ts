/**
 * What a storage format answers: how many bytes a value and a row take, what a page holds, and which
 * engine settings it accepts. The page engine (src/heap) asks these questions; it knows no format.
 */
import type { ColumnDef, EngineSpec, TableDef } from '../config/spec.js';
import type { FormatId } from '../config/schema.js';

/** Marker for a NULL in a row's stored lengths. */
export const NULL_LEN = 0xffff;
/** Longest value length the row store keeps (bytes); longer values are out of row in every engine. */
export const MAX_STORED_LEN = 0xfffe;

/** How one column is stored by a format. */
export interface ColumnLayout {
  name: string;
  index: number;
  nullable: boolean;
  /** Stored length varies from row to row (variable-length type, or nullable): kept per row. */
  varying: boolean;
  /** Position among the varying columns, or -1. */
  varIndex: number;
  /** Variable-length type (varchar, varbinary, text …) as opposed to fixed-length. */
  variableType: boolean;
  /** Bytes of a non-NULL value of a fixed-length type; for variable types, 0. */
  fixedBytes: number;
  /** Most bytes a value may take (declared bound). */
  maxBytes: number;
  /** Config lengths count characters (true) or bytes (false). */
  character: boolean;
  /** Declared length in characters or bytes (char(n), varchar(n), binary(n)). */
  declaredLength: number;
  /** Average bytes per character for character columns under the engine's encoding. */
  bytesPerChar: number;
  /** The column is a key column of some index. */
  indexed: boolean;
}

export interface PageGeometry {
  pageBytes: number;
  headerBytes: number;
  /** Bytes for rows and the row offset table: page − header (− special space). */
  usableBytes: number;
  /** Bytes of one row offset table entry / line pointer / slot. */
  slotBytes: number;
  maxRowsPerPage: number;
  /** Longest row a page accepts (physical). */
  maxRowBytes: number;
}

export interface TableLayout {
  columns: ColumnLayout[];
  /** Columns whose length is stored per row, in varIndex order. */
  varying: ColumnLayout[];
  geometry: PageGeometry;
  /** Physical bytes of the shortest and longest possible row, and the logical maximum (data only). */
  minRowBytes: number;
  maxRowBytes: number;
  logicalMaxBytes: number;
  /** Bytes of the fixed-length NOT NULL columns (ASE's lower bound for exp_row_size). */
  fixedNotNullBytes: number;
}

/** A setting that is wrong for this format and table: the config loader turns it into an InputError. */
export class EngineSettingError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(message);
  }
}

/** Engine settings after format-specific resolution (what results.json reports under `engine`). */
export interface ResolvedEngine {
  format: FormatId;
  page_size: number;
  [setting: string]: string | number | boolean | undefined;
}

export interface Format {
  readonly id: FormatId;
  readonly title: string;
  readonly defaultPageBytes: number;
  /** Page sizes the format accepts. */
  readonly pageSizes: readonly number[];
  /** Engine keys this format uses; other given keys are ignored with a note. */
  readonly settings: readonly (keyof EngineSpec)[];
  layout(table: TableDef, engine: EngineSpec): TableLayout;
  /**
   * Physical bytes of the row whose varying lengths are lens[base .. base + varying.length).
   * `logical`, when given, is logicalBytes() of the same row, for formats that can reuse it.
   */
  rowBytes(layout: TableLayout, lens: Uint16Array, base: number, logical?: number): number;
  /** Logical bytes: data only, without row overhead. */
  logicalBytes(layout: TableLayout, lens: Uint16Array, base: number): number;
  /** Check and resolve format-specific settings; throws EngineSettingError. */
  resolve(engine: EngineSpec, layout: TableLayout): ResolvedEngine;
  /** Notes for the output: settings that are accepted but have no effect, assumptions. */
  notes(engine: EngineSpec, resolved: ResolvedEngine): string[];
}

export function columnIsIndexed(table: TableDef, col: ColumnDef): boolean {
  const n = col.name.toLowerCase();
  return table.indexes.some((i) => i.columns.some((c) => c.toLowerCase() === n));
}
