/**
 * Inputs of known content for rowsim's own pglz and LZ4 (src/pgcheck/pglz.ts, lz4.ts), and what a
 * PostgreSQL 15.20 server (Debian 12's, LZ4 1.9.4) stored for each, in a text column of storage MAIN (so
 * a compressed value stays in the row): pg_column_size, the compressed varlena with its 8-byte header,
 * or the value with its 4-byte header when the server kept it uncompressed (pg_column_compression
 * NULL). test/toast.test.ts holds the compressors to these figures; test/pgcheck.test.ts measures them
 * again on the live server.
 */
const LOREM =
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. ';

export interface KnownInput {
  name: string;
  text: string;
  /** pg_column_size with default_toast_compression = pglz and = lz4 (null: stored uncompressed). */
  pglz: number | null;
  lz4: number | null;
}

export const KNOWN_INPUTS: readonly KnownInput[] = [
  { name: "'0123456789' × 400", text: '0123456789'.repeat(400), pglz: 67, lz4: 43 },
  { name: "'rowsim ' × 500", text: 'rowsim '.repeat(500), pglz: 57, lz4: 38 },
  { name: 'a sentence of lorem ipsum × 30', text: LOREM.repeat(30), pglz: 187, lz4: 155 },
  // Highly repetitive text as users write it (PostgreSQL 15.18, Debian 12, LZ4 1.9.4): compressibility { unit: N }.
  { name: "repeat('x', 3000)", text: 'x'.repeat(3000), pglz: 44, lz4: 30 },
  { name: "repeat(md5('1'), 94)", text: 'c4ca4238a0b923820dcc509a6f75849b'.repeat(94), pglz: 79, lz4: 62 },
  { name: "rpad('ABC-3000', 3000)", text: 'ABC-3000'.padEnd(3000, ' '), pglz: 53, lz4: 38 },
  // 0,1,2,…,999: pglz finds too little before its 25% rate gives up; LZ4 saves 23 bytes.
  { name: "'0,1,2,…,999'", text: Array.from({ length: 1000 }, (_, i) => String(i)).join(','), pglz: null, lz4: 3870 },
];
