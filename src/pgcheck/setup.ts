/**
 * pg-check's set-up on the server: a statement with its place for the message, what the server is
 * (version, block size, encoding, lz4) checked against the config before anything is created, and the
 * scratch schema the replay works in.
 */
import type pg from 'pg';
import type { StorageSpec } from '../config/spec.js';
import { pgLayout } from '../formats/postgres.js';
import { utf8BytesPerChar } from '../layout/table-layout.js';
import { PgCheckError, PgServerError, type ReplayPlace } from './errors.js';
import { DEFAULT_SCHEMA_PREFIX, ScratchSchema } from './scratch.js';

/** Server encodings that store UTF-8 bytes as sent. */
const UTF8_BYTES_ENCODINGS = new Set(['UTF8', 'SQL_ASCII']);

/** What creating the scratch schema takes from pg-check's options. */
export interface ScratchOptions {
  schemaPrefix?: string;
  backendPid?: number;
  onSchema?: (schema: ScratchSchema | undefined) => void;
}

/** Prepared statements named so far in this process: no name is used twice on a connection. */
let preparedStatements = 0;

/**
 * Names for the replay's row statements, by text: each becomes a named prepared statement, parsed once
 * a connection and then only bound and executed a row at a time; the same statement with the same
 * values in the same transaction, as an application that prepares its statements sends it (four points
 * of 6,000 rows and 6,000 one-row UPDATEs: the server's CPU 3.1 -> 1.5 s, every figure the same).
 */
export function statementNamer(): { name(text: string): string; names(): string[] } {
  const names = new Map<string, string>();
  return {
    name(text) {
      let name = names.get(text);
      if (name === undefined) names.set(text, (name = `rowsim_${++preparedStatements}`));
      return name;
    },
    names: () => [...names.values()],
  };
}

/**
 * The replay's prepared statements let go once it ends (DEALLOCATE): a sweep's points on one connection
 * would otherwise each leave theirs, plans of multi-row INSERTs among them, in the server's session. Best
 * effort: what a failure leaves goes with the connection.
 */
export async function deallocate(client: pg.Client, names: readonly string[]): Promise<void> {
  for (const name of names) await client.query(`DEALLOCATE ${name}`);
}

/** The server's answer to a statement sent at `place` (a named prepared statement given `name`), or a PgServerError naming that place. */
export async function query(
  client: pg.Client,
  place: ReplayPlace,
  text: string,
  params?: unknown[],
  name?: string,
): Promise<pg.QueryResult> {
  try {
    return await (name ? client.query({ name, text, values: params }) : client.query(text, params));
  } catch (err) {
    throw PgServerError.from(err, place) ?? err;
  }
}

/** What the server is, checked against the config before anything is created; and whether its encoding gives the table an empty TOAST relation. */
export async function serverFacts(
  client: pg.Client,
  spec: StorageSpec,
  notes: string[],
): Promise<{ version: string; major: number; emptyToast: boolean }> {
  const setup: ReplayPlace = { where: 'reading the server settings' };
  const version = (await query(client, setup, 'SHOW server_version')).rows[0].server_version as string;
  const blockSize = Number((await query(client, setup, 'SHOW block_size')).rows[0].block_size);
  if (blockSize !== spec.engine.page_size)
    throw new PgCheckError(`the server's block_size is ${blockSize}, the config's page_size ${spec.engine.page_size}`);
  const major = Number(/^(\d+)/.exec(version)?.[1] ?? 0);
  if (major < 15) throw new PgCheckError(`PostgreSQL 15 or later (pg_stat_force_next_flush), found ${version}`);
  const encoding = (await query(client, setup, 'SHOW server_encoding')).rows[0].server_encoding as string;
  if (spec.engine.encoding === 'utf8' && utf8BytesPerChar(spec.engine) > 1 && !UTF8_BYTES_ENCODINGS.has(encoding)) {
    throw new PgCheckError(
      `the config stores utf8 with multi-byte characters; the database's encoding is ${encoding}, where they would not take the bytes they take in UTF-8: use a database created with ENCODING 'UTF8'`,
    );
  }
  // A latin1 config replayed on a UTF8 database: PostgreSQL decides on a TOAST relation with the
  // database's longest character (4 bytes), so a table the model gives none in latin1 can have one here,
  // empty (its rows are the same bytes): no TOAST pages, its index a metapage.
  const emptyToast =
    spec.engine.encoding !== 'utf8' &&
    UTF8_BYTES_ENCODINGS.has(encoding) &&
    !pgLayout(spec.table, spec.engine).pg.hasToastRelation &&
    pgLayout(spec.table, { ...spec.engine, encoding: 'utf8' }).pg.hasToastRelation;
  if (emptyToast)
    notes.push(
      `the server's encoding ${encoding} allows 4 bytes a character where the config's ${spec.engine.encoding} allows 1, so PostgreSQL gives table ${spec.table.name} a TOAST relation it would not have in a ${spec.engine.encoding} database; nothing can move there (the rows are the same bytes): predicted empty, its index a metapage`,
    );
  if (spec.engine.default_toast_compression === 'lz4') {
    const sql = `SELECT count(*)::int AS n FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)`;
    if ((await query(client, setup, sql)).rows[0].n === 0)
      throw new PgCheckError(
        `the config compresses with lz4 (default_toast_compression); this server was built without lz4 (--with-lz4): its default_toast_compression takes pglz only`,
      );
  }
  return { version, major, emptyToast };
}

/** The scratch schema the replay works in; a refused CREATE SCHEMA leaves none. */
export async function createScratch(client: pg.Client, options: ScratchOptions): Promise<ScratchSchema> {
  const setup: ReplayPlace = { where: 'reading the server settings' };
  const backendPid = options.backendPid ?? Number((await query(client, setup, 'SELECT pg_backend_pid() AS pid')).rows[0].pid);
  try {
    return await ScratchSchema.create(client, options.schemaPrefix ?? DEFAULT_SCHEMA_PREFIX, backendPid, (s) => options.onSchema?.(s));
  } catch (err) {
    const refused = PgServerError.from(err, { where: 'creating the scratch schema' });
    // The server refused the CREATE SCHEMA (its transaction rolled back): no schema exists. After a lost
    // connection it may: the caller still holds it, to look for it over a new connection.
    if (refused) options.onSchema?.(undefined);
    throw refused ?? err;
  }
}
