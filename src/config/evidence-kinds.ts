/**
 * The DBA's tool outputs an estimate reads (the keys under estimate.measured that hold one, and the
 * command-line flags that give one): listed once for the loader, the estimator and the formats, which
 * say which of them their DBMS produces (StorageFormat.evidence).
 */
export const EVIDENCE_KINDS = ['optdiag', 'sp_spaceused', 'index_physical_stats', 'pgstattuple', 'pg_stat_user_tables'] as const;
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];
