/**
 * The scratch schema pg-check replays into. A user's database may hold anything, including a schema
 * named like ours and a second pg-check running at the same time, so:
 *   - the name has a random part and is taken with a plain CREATE SCHEMA (a name in use is never
 *     reused: another one is drawn);
 *   - CREATE SCHEMA and a COMMENT carrying a random token commit together, so a schema with that
 *     comment was made by this run and by nothing else;
 *   - drop() drops it only while it still carries that comment.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type pg from 'pg';
import { quoteIdent } from './values.js';

export const DEFAULT_SCHEMA_PREFIX = 'rowsim_check';

/** Names drawn before giving up: 48 random bits each, so a second collision means something is wrong. */
const NAME_ATTEMPTS = 5;
/** PostgreSQL cuts identifiers at 63 bytes (NAMEDATALEN − 1): the random part must survive that. */
const MAX_PREFIX_BYTES = 63 - 13;
const DUPLICATE_SCHEMA = '42P06';
/** The DROP of the scratch schema gives up after these (ms): see drop(). */
const DROP_STATEMENT_TIMEOUT_MS = 60_000;
const DROP_LOCK_TIMEOUT_MS = 10_000;

export class ScratchSchema {
  private constructor(
    readonly name: string,
    /** The COMMENT ON SCHEMA text, whose token only this run knows. */
    readonly marker: string,
  ) {}

  /** Draw a name and a marker (nothing is created yet). */
  static plan(prefix: string, backendPid: number): ScratchSchema {
    if (Buffer.byteLength(prefix) > MAX_PREFIX_BYTES)
      throw new Error(`expected a schema prefix of at most ${MAX_PREFIX_BYTES} bytes, found ${Buffer.byteLength(prefix)}: ${prefix}`);
    const name = `${prefix}_${randomBytes(6).toString('hex')}`;
    const token = randomBytes(12).toString('hex');
    // pid and backend say whose schema it is to someone who finds it (the tests read them too).
    const marker = `rowsim pg-check ${token}: scratch schema of pid ${process.pid} on ${hostname()}, backend ${backendPid}, created ${new Date().toISOString()}; dropped when the check ends`;
    return new ScratchSchema(name, marker);
  }

  get ident(): string {
    return quoteIdent(this.name);
  }

  /** The statement a person runs to drop it by hand. */
  get dropSql(): string {
    return `DROP SCHEMA ${this.ident} CASCADE`;
  }

  /**
   * Create a schema named `<prefix>_<12 random hex>`, marked as this run's. `announce` is told each name
   * before its CREATE is sent, so a signal arriving mid-statement knows what may exist.
   */
  static async create(
    client: pg.Client,
    prefix: string,
    backendPid: number,
    announce: (s: ScratchSchema) => void = () => {},
  ): Promise<ScratchSchema> {
    for (let attempt = 1; ; attempt++) {
      const s = ScratchSchema.plan(prefix, backendPid);
      announce(s);
      await client.query('BEGIN');
      try {
        await client.query(`CREATE SCHEMA ${s.ident}`);
        await client.query(`COMMENT ON SCHEMA ${s.ident} IS ${quoteLiteral(s.marker)}`);
        await client.query('COMMIT');
        return s;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        if ((err as { code?: string }).code !== DUPLICATE_SCHEMA || attempt >= NAME_ATTEMPTS) throw err;
      }
    }
  }

  /**
   * Drop the schema if it exists and still carries this run's marker: 'dropped', 'absent' (never
   * created, or already dropped), or 'not-ours' (someone else's schema by that name: left alone).
   * The check and the DROP run in one transaction; the marker's token is known to this run only.
   */
  async drop(client: pg.Client): Promise<'dropped' | 'absent' | 'not-ours'> {
    await client.query('BEGIN');
    try {
      // Bounded whatever the session's own timeouts are (a check stopped by its statement_timeout must
      // still drop its schema), and bounded when another session holds a lock on a scratch table.
      await client.query(`SET LOCAL statement_timeout = ${DROP_STATEMENT_TIMEOUT_MS}`);
      await client.query(`SET LOCAL lock_timeout = ${DROP_LOCK_TIMEOUT_MS}`);
      const r = await client.query(`SELECT obj_description(oid, 'pg_namespace') AS marker FROM pg_namespace WHERE nspname = $1`, [
        this.name,
      ]);
      if (r.rows.length === 0) {
        await client.query('COMMIT');
        return 'absent';
      }
      if (r.rows[0].marker !== this.marker) {
        await client.query('COMMIT');
        return 'not-ours';
      }
      await client.query(this.dropSql);
      await client.query('COMMIT');
      return 'dropped';
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    }
  }
}

function quoteLiteral(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}
