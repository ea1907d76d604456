/**
 * The storage formats a config may name (engine.format). The ground floor knows the type, not the list:
 * each format module in src/formats adds its id to FormatIds (declaration merging), and
 * src/formats/registry.ts lists the modules. Adding a format is one module and one registry line.
 */
// Filled by the format modules: `declare module '../config/format-ids.js' { interface FormatIds { 'x': true } }`.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface FormatIds {}

export type FormatId = keyof FormatIds & string;
