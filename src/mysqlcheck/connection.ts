/**
 * mysql-check's connections (mysql2, pure JavaScript): a URL mysql://user[:password]@host[:port][/database]
 * read without opening anything, a connect bounded in time, a lost connection told from an SQL error, and
 * no password in any message (the URL's, as written and decoded, and MYSQL_PWD's are masked wherever they
 * appear).
 */
import mysql from 'mysql2/promise';
import { redactUrl } from '../pgcheck/connection.js';

/** Connecting gives up after this: a host that drops packets would otherwise take minutes. */
const CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_PORT = 3306;

/** A connection failure or loss, said in one line without a password: the CLI prints it and exits 2. */
export class MysqlConnectionError extends Error {}

export type Redact = (text: string) => string;

export interface MysqlTarget {
  url: string;
  user: string;
  password: string;
  host: string;
  port: number;
  /** The URL's database (mysql-check works in a database of its own: this one is only connected to). */
  database: string;
  /** The URL without its password, for messages. */
  shown: string;
  redact: Redact;
}

export type MysqlConnection = mysql.Connection;

/** A redactor for texts about `url`: its password (as written and decoded) and MYSQL_PWD become ***. */
export function mysqlRedactor(url: string, password: string): Redact {
  const raw = /^[a-z]+:\/\/[^:@/]*:(.*)@[^@]*$/i.exec(url.split(/[?#]/)[0] ?? '')?.[1];
  const secrets = [raw ?? '', password, process.env.MYSQL_PWD ?? ''].filter((s) => s.length > 0);
  secrets.sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text.split(url).join(redactUrl(url));
    for (const s of secrets) out = out.split(s).join('***');
    return out;
  };
}

/** Who and where a URL connects to. Nothing is opened. */
export function mysqlTarget(url: string): MysqlTarget {
  const expected = 'expected a URL mysql://user[:password]@host[:port][/database]';
  if (!/^(mysql|mariadb):\/\/[^/]/i.test(url.trim())) throw new MysqlConnectionError(`${expected}, found ${redactUrl(url)}`);
  let u: URL;
  try {
    u = new URL(url.trim());
  } catch {
    throw new MysqlConnectionError(`${expected}, found ${redactUrl(url)}`);
  }
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  const password = u.password ? decode(u.password) : (process.env.MYSQL_PWD ?? '');
  const redact = mysqlRedactor(url, password);
  const user = decode(u.username);
  if (!user) throw new MysqlConnectionError(`${expected} (a user is needed), found ${redactUrl(url)}`);
  const port = u.port ? Number(u.port) : DEFAULT_PORT;
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  return { url, user, password, host, port, database: decode(u.pathname.replace(/^\//, '')), shown: redactUrl(url), redact };
}

interface ConnectOptions {
  timeoutMs?: number;
  /** Told of errors the connection reports outside a query (the server ended it while idle). */
  onError?: (err: Error) => void;
}

/** A connected client; it always has an 'error' listener (an unheard one ends node with a stack trace). */
export async function connect(target: MysqlTarget, options: ConnectOptions = {}): Promise<MysqlConnection> {
  const timeoutMs = options.timeoutMs ?? CONNECT_TIMEOUT_MS;
  try {
    const conn = await mysql.createConnection({
      host: target.host,
      port: target.port,
      user: target.user,
      password: target.password,
      database: target.database || undefined,
      connectTimeout: timeoutMs,
      // The replay sends a phase's statements several to a round trip (replay.ts: flush); values are
      // escaped and names quoted in every statement, so no text of a config can end one and start another.
      multipleStatements: true,
      supportBigNumbers: true,
      dateStrings: true,
    });
    conn.on('error', (err: Error) => options.onError?.(err));
    return conn;
  } catch (err) {
    const message = target.redact(err instanceof Error ? err.message : String(err));
    throw new MysqlConnectionError(`cannot connect to ${target.shown}: ${message}`);
  }
}

/** End a connection without waiting on the server more than a moment. */
export async function closeConnection(conn: MysqlConnection, waitMs = 1000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const ended = conn.end().catch(() => undefined);
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), waitMs)));
  const r = await Promise.race([ended, late]);
  clearTimeout(timer);
  if (r === 'late') conn.destroy();
}

const LOST_CODES = new Set([
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_ENQUEUE_AFTER_FATAL_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_CONNECTION_KILLED',
  'ECONNRESET',
  'EPIPE',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

/** The connection is gone (killed, server stopped, network), as opposed to an SQL error. */
export function isConnectionLost(err: unknown): boolean {
  if (err instanceof MysqlConnectionError) return true;
  if (!(err instanceof Error)) return false;
  const e = err as { code?: unknown; fatal?: unknown };
  if (typeof e.code === 'string' && LOST_CODES.has(e.code)) return true;
  return e.fatal === true || /closed state|Connection lost/i.test(err.message);
}
