/**
 * The input readers' one entry point: read a file (regular files of bounded size only,
 * src/config/read.ts) and parse it as the kind of output it is. The only I/O of the evidence readers.
 */
import { readInputText } from '../../config/read.js';
import { parseIndexPhysicalStats } from './index-stats.js';
import { parseOptdiag } from './optdiag.js';
import { parsePgstattuple, parsePgStatUserTables } from './pgstat.js';
import { parseSpaceused } from './spaceused.js';
import type { EvidenceKind, ReadOutcome } from './types.js';

/** What each input is, for messages: "optdiag's text output". */
const EVIDENCE_WHAT: Record<EvidenceKind, string> = {
  optdiag: "optdiag's text output (optdiag statistics db..table -o file)",
  sp_spaceused: 'the output of sp_spaceused <table>',
  index_physical_stats: 'sys.dm_db_index_physical_stats rows of the heap, as CSV with a header',
  pgstattuple: "psql's output of SELECT * FROM pgstattuple('<table>')",
  pg_stat_user_tables: "psql's output of SELECT * FROM pg_stat_user_tables WHERE relname = '<table>'",
};

function parseEvidence(kind: EvidenceKind, text: string, file: string, table?: string): ReadOutcome {
  switch (kind) {
    case 'optdiag':
      return parseOptdiag(text, file, table);
    case 'sp_spaceused':
      return parseSpaceused(text, file, table);
    case 'index_physical_stats':
      return parseIndexPhysicalStats(text, file, table);
    case 'pgstattuple':
      return parsePgstattuple(text, file);
    case 'pg_stat_user_tables':
      return parsePgStatUserTables(text, file, table);
  }
}

/** Read and parse one input file; an unreadable file is a problem without a line (the caller places it). */
export function readEvidence(kind: EvidenceKind, file: string, table?: string): ReadOutcome | { unreadable: string } {
  const read = readInputText(file);
  if (!read.ok) return { unreadable: `expected a readable file of ${EVIDENCE_WHAT[kind]} at ${file}: ${read.problem}` };
  return parseEvidence(kind, read.text, file, table);
}
