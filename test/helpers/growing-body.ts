/**
 * The small storage config that the command-line tests run (cli, shard, output-safety, report-browser):
 * an ase-dol table of an id and a varchar(300) body, rows inserted with short bodies, every row's body
 * grown, a reorg, over a sweep of exp_row_size. Each test file picks its own size, order and sweep.
 */
export interface GrowingBody {
  name: string;
  seed: number;
  rows: number;
  /** The update's order (none: the default). */
  order?: string;
  /** The update's growth, uniform over [min, max] bytes (default [20, 120]). */
  grow?: [number, number];
  /** A delete phase between the update and the reorg: its rows (`10%`). */
  deletes?: string;
  /** The sweep: each key with its values, as YAML flow text (`[1, max]`). */
  sweep: Record<string, string>;
}

/** The config's YAML text. */
export function growingBodyConfig(c: GrowingBody): string {
  const [min, max] = c.grow ?? [20, 120];
  return [
    `name: ${c.name}`,
    `seed: ${c.seed}`,
    'table:',
    '  name: t',
    '  columns:',
    '    - { name: id, type: int }',
    '    - { name: body, type: varchar(300), null: true }',
    'engine: { format: ase-dol, page_size: 2k }',
    'workload:',
    `  - insert: { rows: ${c.rows}, values: { body: { length: { uniform: [0, 30] } } } }`,
    `  - update: { rows: all, ${c.order ? `order: ${c.order}, ` : ''}set: { body: { grow: { uniform: [${min}, ${max}] } } } }`,
    ...(c.deletes ? [`  - delete: { rows: ${c.deletes} }`] : []),
    '  - reorg: forwarded_rows',
    'sweep:',
    ...Object.entries(c.sweep).map(([key, values]) => `  ${key}: ${values}`),
    '',
  ].join('\n');
}
