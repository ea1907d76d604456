/**
 * The per-index space settings and options (docs/config.md): which a format reads is StorageFormat.indexSettings.
 * A module of its own, without zod, so that the page engines and the workload runner (worker threads)
 * can name them without loading the config schema.
 */
export const INDEX_SETTING_KEYS = ['fillfactor', 'pctfree', 'max_rows_per_page', 'reservepagegap', 'merge_threshold'] as const;
export type IndexSettingKey = (typeof INDEX_SETTING_KEYS)[number];
/** Every per-index option: the space settings and PostgreSQL's deduplicate_items (a boolean). */
export const INDEX_OPTION_KEYS = [...INDEX_SETTING_KEYS, 'deduplicate_items'] as const;
export type IndexOptionKey = (typeof INDEX_OPTION_KEYS)[number];
