/**
 * The counters a page engine reports after every phase (results.json: `phases[].metrics` and `final`),
 * one interface per group. docs/results.md defines every one of them.
 */

/** What every engine reports: the table as a DBA sees it in sp_spaceused / optdiag / pgstattuple. */
interface TableMetrics {
  rows: number;
  pages: number;
  /** Rows living away from their home page (ASE, SQL Server) or migrated (Oracle); 0 on PostgreSQL. */
  forwarded_rows: number;
  /** PostgreSQL heap-only updates; 0 for formats without MVCC. */
  hot_updates: number;
  updates: number;
  /** Pages a table scan reads: pages + forwarded-row hops (+ chained pieces). */
  table_scan_page_reads: number;
  space_used_pct: number;
  exclusive_table_locks: number;
  avg_rows_per_page: number;
  avg_row_bytes: number;
}

/** The operations that reached the engine, and those it refused (rows longer than a page takes). */
interface OperationMetrics {
  inserts: number;
  deletes: number;
  rows_rejected: number;
  updates_rejected: number;
}

/** A heap whose rows are forwarded (ASE DOL, SQL Server), migrated (Oracle) or moved (ASE APL). */
export interface ForwardingMetrics extends TableMetrics, OperationMetrics {
  stubs: number;
  reserved_bytes: number;
  fragmented_bytes: number;
  empty_pages: number;
  updates_in_place: number;
  forwarded_updates: number;
  reforwarded_updates: number;
  row_moves: number;
  index_row_updates: number;
  compactions: number;
  reorg_transactions: number;
  rows_moved_home: number;
  rows_rehomed: number;
  pages_allocated: number;
  pages_deallocated: number;
  /** SQL Server: a shrinking forwarded row moved back home. */
  moved_home_on_update?: number;
  /** Oracle: rows longer than a block, their extra blocks, and `table fetch continued row`. */
  chained_rows?: number;
  chained_pages?: number;
  table_fetch_continued_row?: number;
}

/** The PostgreSQL heap: MVCC versions, HOT, pruning, VACUUM (pg_stat_user_tables, pgstattuple). */
export interface MvccMetrics extends TableMetrics, OperationMetrics {
  hot_updates_pct: number;
  newpage_updates: number;
  samepage_nonhot_updates: number;
  dead_tuples: number;
  dead_tuple_bytes: number;
  free_bytes: number;
  line_pointers: number;
  unused_line_pointers: number;
  heap_only_rows: number;
  empty_pages: number;
  prunes: number;
  pruned_tuples: number;
  index_entries_added: number;
  vacuums: number;
  vacuum_full: number;
  lp_dead_reclaimed: number;
  pages_truncated: number;
  /** Pages of the free space map and visibility map forks (pg_relation_size(…, 'fsm' | 'vm')). */
  fsm_pages: number;
  vm_pages: number;
}

/** A table kept in clustered-index order (SQL Server clustered table, ASE allpages-locked with a clustered index). */
export interface ClusteredMetrics extends TableMetrics, OperationMetrics {
  updates_in_place: number;
  /** Pages split because a row grew past its page's free space (mid-index splits; not the new pages appended at the end). */
  page_splits: number;
  rows_moved_by_splits: number;
  /** ASE allpages-locked: entries of the nonclustered indexes updated for the rows splits moved (one per index per row). */
  index_row_updates: number;
  /** Pages a build left empty for later splits (reservepagegap). */
  empty_pages: number;
  pages_allocated: number;
  pages_deallocated: number;
  /** Data pages whose next page in key order lies before them in the file, in % (sys.dm_db_index_physical_stats avg_fragmentation_in_percent). */
  logical_fragmentation_pct: number;
}

/**
 * A table that is its clustered B+tree (InnoDB): splits and merges instead of forwarding, the index
 * statistics a MySQL DBA reads (mysql.innodb_index_stats, information_schema.TABLES).
 */
export interface IndexOrganizedMetrics extends TableMetrics, OperationMetrics {
  updates_in_place: number;
  page_splits: number;
  page_merges: number;
  page_reorganizes: number;
  /** Records delete-marked and not yet purged (purge runs at each commit: a quiet server). */
  delete_marked: number;
  purged_records: number;
  /** Pages of off-page column values (BLOB pages, in the clustered index's leaf segment). */
  offpage_pages: number;
  /** Average bytes of records on the clustered index's leaf pages, in % of an empty page's free space. */
  leaf_fill_pct: number;
  /** information_schema.TABLES: the clustered index's pages, the secondary indexes' pages, free extents, in bytes. */
  data_length: number;
  index_length: number;
  data_free: number;
  /** What `rowsim mysql-check` compares with a live server: per index, and the table's sizes in bytes. */
  innodb: {
    indexes: Record<string, InnodbIndexFigures>;
    data_length: number;
    index_length: number;
    data_free: number;
  };
}

/** One index's figures, as the server reports them. */
export interface InnodbIndexFigures {
  /** mysql.innodb_index_stats n_leaf_pages: pages in use in the leaf segment (with the clustered index's off-page pages); 1 for a one-page index and for a secondary index whose leaf segment holds fragment pages only (as MariaDB 10.11 reports it). */
  leaf_pages: number;
  /** mysql.innodb_index_stats size: the pages both segments reserve. */
  size_pages: number;
  nonleaf_pages: number;
  /** Records on all the index's pages, node pointers included (INNODB_BUFFER_PAGE NUMBER_RECORDS summed), and on its leaves. */
  records: number;
  leaf_records: number;
  levels: number;
  /** The leaf pages the tree has (leaf_pages without the server's rounding). */
  leaves: number;
}

/** What an engine reports; the runner adds the index entries it tracks. */
export type EngineMetrics = (ForwardingMetrics | MvccMetrics | ClusteredMetrics | IndexOrganizedMetrics) & {
  index_entries?: number;
  /** SQL Server: pages of the ROW_OVERFLOW_DATA records of rows above 8,060 bytes (tables whose rows can exceed it). */
  row_overflow_pages?: number;
  /** PostgreSQL, a table with a TOAST relation: its pages, its index's pages, live values out of line, live values compressed. */
  toast_pages?: number;
  toast_index_pages?: number;
  toast_values?: number;
  compressed_values?: number;
};

/** A counter by name (those a format's report columns or a knob's target name), 0 when absent. */
export function metric(m: EngineMetrics, name: string): number {
  const v = (m as unknown as Record<string, number | undefined>)[name];
  return typeof v === 'number' ? v : 0;
}
