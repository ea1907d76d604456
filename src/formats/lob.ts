/**
 * Where large-object values live, for read_lob phases: how many bytes of a value a LOB page holds, and
 * what a read at an offset reads besides the pages of the bytes (a TOAST index, a LOB tree's root, a text
 * page's node). Each format that stores LOBs out of row answers with one (StorageFormat.lobStore); Apache
 * Derby's long-column pages are here too, for the story of DERBY-3766 (Derby is not a table format of
 * rowsim). Sources: docs/sources.md under the keys cited.
 */
import { groupedNumber } from '../util/numbers.js';

export interface LobStore {
  /** What the store is, for the reports: "PostgreSQL TOAST (1,996-byte chunks, 4 a page)". */
  title: string;
  /** Bytes of a value one LOB page holds. */
  bytesPerPage: number;
  /** Pages a read at an offset reads to find its first page (an index or tree), for a value of `valueBytes` among `values` values. */
  lookupPages(valueBytes: number, values: number): number;
  /** Assumptions the figures rest on, said in the results. */
  assumed: string[];
  source: string;
}

/** PostgreSQL: TOAST_MAX_CHUNK_SIZE (1,996 bytes on 8 kB blocks), EXTERN_TUPLES_PER_PAGE = 4 chunk rows a TOAST page [PG-TOAST]. */
export const PG_EXTERN_TUPLES_PER_PAGE = 4;
/** Entries a TOAST index page holds, about: (chunk_id oid, chunk_seq int4) keys of 16 bytes with a 4-byte line pointer on 8 kB (an assumption for the index's depth). */
const PG_TOAST_INDEX_FANOUT = 400;

export function pgToastStore(pageBytes: number, toastMaxChunkBytes: number): LobStore {
  const perPage = toastMaxChunkBytes * PG_EXTERN_TUPLES_PER_PAGE;
  const fanout = Math.max(2, Math.round((PG_TOAST_INDEX_FANOUT * pageBytes) / 8192));
  return {
    title: `PostgreSQL TOAST (${groupedNumber(toastMaxChunkBytes)}-byte chunks, ${PG_EXTERN_TUPLES_PER_PAGE} a page)`,
    bytesPerPage: perPage,
    // heap_fetch_toast_slice: the TOAST index searched for chunk_seq BETWEEN the slice's first and last chunk [PG-TOAST].
    lookupPages: (valueBytes, values) => btreeLevels(Math.max(1, values * Math.ceil(valueBytes / toastMaxChunkBytes)), fanout),
    assumed: ['values stored uncompressed, each starting on a TOAST page of its own', `a TOAST index of ${fanout} entries a page`],
    source: '[PG-TOAST]',
  };
}

/** SQL Server: 8,080 bytes of LOB data a page; a value's text root, with intermediate nodes above 32 KB [SS-LOB]. */
const SQLSERVER_LOB_PAGE_BYTES = 8_080;
const SQLSERVER_LOB_ROOT_DIRECT_BYTES = 32 * 1024;

export function sqlserverLobStore(): LobStore {
  return {
    title: `SQL Server LOB pages (${groupedNumber(SQLSERVER_LOB_PAGE_BYTES)} bytes of data a page)`,
    bytesPerPage: SQLSERVER_LOB_PAGE_BYTES,
    lookupPages: (valueBytes) => (valueBytes > SQLSERVER_LOB_ROOT_DIRECT_BYTES ? 2 : 1),
    assumed: ['a read at an offset goes root → one intermediate node (values above 32 KB) → the pages of its bytes'],
    source: '[SS-LOB]',
  };
}

/** SAP ASE: 1,800 bytes of text a 2 kB page; the first text page's text node maps offsets to pages [ASE-TEXT]. */
const ASE_TEXT_BYTES_2K = 1_800;

export function aseTextStore(pageBytes: number): LobStore {
  const perPage = ASE_TEXT_BYTES_2K + (pageBytes - 2048);
  return {
    title: `SAP ASE text/image page chain (${groupedNumber(perPage)} bytes a ${pageBytes / 1024} kB page)`,
    bytesPerPage: perPage,
    lookupPages: () => 1,
    assumed:
      pageBytes === 2048
        ? ['a read at an offset reads the first text page (its text node), then the pages of its bytes']
        : [
            `${perPage} bytes a page: the 2 kB page's 1,800 plus the larger page's extra bytes (only 2 kB is documented)`,
            'a read at an offset reads the first text page (its text node), then the pages of its bytes',
          ],
    source: '[ASE-TEXT]',
  };
}

/** Apache Derby: tables with LOB columns default to 32 kB pages; a long column is a chain of overflow pages read one at a time [DERBY-PAGE]. */
const DERBY_LOB_PAGE_BYTES = 32_768;
/** Bytes of a 32 kB page a long column's portion takes: the page less a 56-byte header and an 8-byte checksum (an assumption: Derby does not document it). */
const DERBY_PAGE_OVERHEAD_BYTES = 64;

export function derbyLobStore(): LobStore {
  return {
    title: 'Apache Derby long-column pages (32 kB, a chain)',
    bytesPerPage: DERBY_LOB_PAGE_BYTES - DERBY_PAGE_OVERHEAD_BYTES,
    lookupPages: () => 0,
    assumed: [
      `${DERBY_LOB_PAGE_BYTES - DERBY_PAGE_OVERHEAD_BYTES} bytes of a value a 32 kB page (the page less a header and checksum of ${DERBY_PAGE_OVERHEAD_BYTES} bytes)`,
    ],
    source: '[DERBY-PAGE][S-DERBY-3766]',
  };
}

/** Levels of a B-tree over `entries` entries, `fanout` a page. */
function btreeLevels(entries: number, fanout: number): number {
  let levels = 1;
  for (let n = Math.ceil(entries / fanout); n > 1; n = Math.ceil(n / fanout)) levels++;
  return levels;
}

/**
 * Reading a value of `s` bytes in chunks of `b`: n = ⌈s / b⌉ reads. `keep`: each read continues where the
 * last ended, s bytes in all. `restart`: each read restarts the stream from the first byte and reads up
 * to its position (as Derby's EmbedBlob did before DERBY-3766 was fixed), s + b·n(n − 1)/2 bytes in all:
 * for a 64 MB Blob read 32,000 bytes at a time, 70,459,204,864 bytes, the count the issue reports
 * Derby making [S-DERBY-3766].
 */
export function lobReadCost(
  s: number,
  b: number,
  reposition: 'restart' | 'keep',
  store: LobStore,
  values: number,
): { reads: number; bytes: number; pages: number; lookups: number } {
  if (s <= 0) return { reads: 0, bytes: 0, pages: 0, lookups: 0 };
  const n = Math.ceil(s / b);
  const per = store.bytesPerPage;
  const lookup = store.lookupPages(s, values);
  if (reposition === 'keep') return { reads: n, bytes: s, pages: Math.ceil(s / per) + n * lookup, lookups: n * lookup };
  // Read i (0-based) processes bytes 0 … min((i + 1)·b, s): the pages of that prefix.
  let pages = 0;
  for (let i = 0; i < n; i++) pages += Math.ceil(Math.min((i + 1) * b, s) / per);
  return { reads: n, bytes: s + (b * n * (n - 1)) / 2, pages: pages + n * lookup, lookups: n * lookup };
}
