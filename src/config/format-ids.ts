/**
 * What the formats add to the config's types. The ground floor knows the types, not their members: each
 * format module in src/formats adds its id to FormatIds, the settings it declares to FormatSettings and
 * the table options its DDL states to DdlTableOptions (declaration merging), and src/formats/registry.ts
 * lists the modules. Adding a format is one module and one registry line (src/formats/README.md).
 */
import type { z } from 'zod';

// Filled by the format modules: `declare module '../config/format-ids.js' { interface FormatIds { 'x': true } }`.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface FormatIds {}

export type FormatId = keyof FormatIds & string;

// Filled by the format modules: the DBMS each models, `interface DbmsIds { oracle: true }` (formats of one DBMS share it).
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DbmsIds {}

/** A DBMS a format models: the DDL dialect and the tool outputs of that DBMS belong to it. */
export type DbmsId = keyof DbmsIds & string;

/**
 * The zod builders a format's settings fragment may use (format modules do not load zod themselves: the
 * page engines run in worker threads). Named one by one, not the namespace: a bundle then carries only
 * the parts of zod rowsim uses (the namespace as a value holds every locale and the JSON Schema code).
 */
export type Zod = Pick<typeof z, 'enum' | 'literal' | 'number' | 'union' | 'string' | 'boolean'>;

/** A format's engine settings as a zod fragment of `engine:` (each optional), built when the config loader asks. */
export type SettingsFragment = (zod: Zod) => Record<string, z.ZodOptional<z.ZodType>>;

/** The resolved settings a fragment declares: every key, with its default filled in. */
export type SettingsOf<F extends SettingsFragment> = Required<z.output<z.ZodObject<ReturnType<F>>>>;

// Filled by the format modules: `interface FormatSettings extends SettingsOf<typeof mySettings> {}`.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface FormatSettings {}

/** A table option read from the DDL, with where it was written. */
export interface DdlSetting<T> {
  value: T;
  line: number;
  column: number;
}

// Filled by the format modules: the storage clauses their DDL states (`exp_row_size?: DdlSetting<number>` …).
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface DdlTableOptions {}
