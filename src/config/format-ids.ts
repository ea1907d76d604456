/** The storage formats a config may name (engine.format); each has a routine in src/formats. */
export const FORMAT_IDS = ['ase-dol', 'ase-apl', 'sqlserver-heap', 'postgres-heap', 'oracle-heap'] as const;
export type FormatId = (typeof FORMAT_IDS)[number];
