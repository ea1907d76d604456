/**
 * The scratch database mysql-check replays into. A server may hold anything, including a database named
 * like ours and a second mysql-check running at the same time, so:
 *   - the name has a random part and is taken with a plain CREATE DATABASE (a name in use is never reused:
 *     another one is drawn);
 *   - its first table, `rowsim_marker`, holds a random token only this run knows, the connection id,
 *     the process and the host: a database with that token was made by this run;
 *   - MySQL's DDL commits by itself, so the database exists, unmarked, until the marker's INSERT commits:
 *     a database whose CREATE DATABASE this process saw succeed is its own, marker or not (unless the
 *     marker holds another token); a signal waits for a CREATE DATABASE still on the wire (settled());
 *   - drop() drops only a database that is this run's by those rules, never another (the check and the
 *     DROP are two statements, a window no other tool is expected to use).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { MysqlConnection } from './connection.js';

export const DEFAULT_DATABASE_PREFIX = 'rowsim_check';
export const MARKER_TABLE = 'rowsim_marker';

/** Names drawn before giving up: 48 random bits each, so a second collision means something is wrong. */
const NAME_ATTEMPTS = 5;
/** MySQL database names are at most 64 characters: the random part must survive. */
const MAX_PREFIX_CHARS = 64 - 13;
const ER_DB_CREATE_EXISTS = 1007;
const ER_NO_SUCH_TABLE = 1146;

/** A seam for the tests: awaited between CREATE DATABASE and the marker (a signal's window). */
export const scratchHooks: { afterCreateDatabase?: (s: ScratchDatabase) => Promise<void> } = {};

export function quoteName(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}

export class ScratchDatabase {
  /** This session's CREATE DATABASE of the name succeeded: the database is this run's, marked or not yet. */
  private createdHere = false;
  /** The CREATE DATABASE on the wire, settled either way. */
  private creating: Promise<void> = Promise.resolve();

  private constructor(
    readonly name: string,
    readonly token: string,
    readonly note: string,
  ) {}

  /** Draw a name and a token (nothing is created yet). */
  static plan(prefix: string, connectionId: number): ScratchDatabase {
    if (prefix.length > MAX_PREFIX_CHARS || !/^[A-Za-z0-9_]+$/.test(prefix))
      throw new Error(`expected a database prefix of at most ${MAX_PREFIX_CHARS} letters, digits or _, found ${prefix}`);
    const name = `${prefix}_${randomBytes(6).toString('hex')}`;
    const token = randomBytes(12).toString('hex');
    const note = `rowsim mysql-check: scratch database of pid ${process.pid} on ${hostname()}, connection ${connectionId}, created ${new Date().toISOString()}; dropped when the check ends`;
    return new ScratchDatabase(name, token, note);
  }

  get ident(): string {
    return quoteName(this.name);
  }

  /** The statement a person runs to drop it by hand. */
  get dropSql(): string {
    return `DROP DATABASE ${this.ident}`;
  }

  /**
   * Create a database `<prefix>_<12 random hex>` and its marker. `announce` is told each name before its
   * CREATE is sent, so a signal arriving mid-statement knows what may exist.
   */
  static async create(
    conn: MysqlConnection,
    prefix: string,
    connectionId: number,
    announce: (s: ScratchDatabase) => void = () => {},
  ): Promise<ScratchDatabase> {
    for (let attempt = 1; ; attempt++) {
      const s = ScratchDatabase.plan(prefix, connectionId);
      announce(s);
      const sent = conn.query(`CREATE DATABASE ${s.ident} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
      s.creating = sent.then(
        () => void (s.createdHere = true),
        () => undefined,
      );
      try {
        await sent;
        await s.creating;
      } catch (err) {
        if ((err as { errno?: number }).errno !== ER_DB_CREATE_EXISTS || attempt >= NAME_ATTEMPTS) throw err;
        continue;
      }
      try {
        await scratchHooks.afterCreateDatabase?.(s);
        await conn.query(`CREATE TABLE ${s.ident}.${MARKER_TABLE} (token CHAR(24) NOT NULL, note VARCHAR(400) NOT NULL) ENGINE=InnoDB`);
        await conn.query(`INSERT INTO ${s.ident}.${MARKER_TABLE} VALUES (?, ?)`, [s.token, s.note]);
      } catch (err) {
        // The CREATE DATABASE above succeeded in this session: the database is ours, marked or not.
        await conn.query(s.dropSql).catch(() => undefined);
        throw err;
      }
      return s;
    }
  }

  /**
   * Wait (at most `ms`) for a CREATE DATABASE still on the wire: a signal's clean-up calls this before it
   * kills the connection, whose answer would otherwise be lost and the database's owner unknown.
   */
  async settled(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.creating, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
  }

  /**
   * Drop the database if it exists and is this run's: created by this session with no other run's token in
   * its marker, or marked with this run's token. 'dropped', 'absent' (never created, or already dropped),
   * or 'not-ours' (someone else's database by that name: left alone).
   */
  async drop(conn: MysqlConnection): Promise<'dropped' | 'absent' | 'not-ours'> {
    const [found] = await conn.query('SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [this.name]);
    if ((found as unknown[]).length === 0) return 'absent';
    let tokens: string[] = [];
    try {
      const [r] = await conn.query(`SELECT token FROM ${this.ident}.${MARKER_TABLE}`);
      tokens = (r as { token: string }[]).map((x) => x.token);
    } catch (err) {
      if ((err as { errno?: number }).errno !== ER_NO_SUCH_TABLE) throw err;
    }
    const marked = tokens.length === 1 && tokens[0] === this.token;
    // Created here, its marker may not be written or committed yet: ours unless another run's token is there.
    const unmarked = this.createdHere && tokens.every((t) => t === this.token);
    if (!marked && !unmarked) return 'not-ours';
    await conn.query(this.dropSql);
    return 'dropped';
  }
}
