/**
 * pg-check's connections: connecting with a bound on the time it takes, failing at once when the server
 * asks for a password nobody gave, telling a lost connection from other errors, and never printing a
 * password (every URL and every message from pg or the server goes through a redactor).
 */
import { createRequire } from 'node:module';
import pg from 'pg';

/** Connecting gives up after this: a host that drops packets would otherwise take minutes. */
const CONNECT_TIMEOUT_MS = 10_000;

/** A connection failure or loss, said in one line (no password in it): the CLI prints it and exits 2. */
export class PgConnectionError extends Error {}

/** The server asked for a password and none was given (URL, PGPASSWORD, ~/.pgpass). */
class PasswordMissingError extends Error {}

/** Masks a password in texts: the URL's (decoded and as written) and PGPASSWORD's. */
type Redact = (text: string) => string;

const QUERY_PASSWORD = /([?&]password=)([^&#]*)/gi;
const SCHEME = /^[a-z][a-z0-9+.-]*:\/*/i;

/**
 * Where a URL's password is: after `scheme://user:` (or, in text pg cannot parse, after `scheme:/user:`
 * or a bare `user:`), up to the last `@` before any query — a password may hold an `@` that was not
 * %-encoded. Null when the URL carries none there.
 */
function passwordSpan(url: string): [number, number] | null {
  const scheme = SCHEME.exec(url);
  // A bare `user:pw@host` reads like a scheme without slashes: then the text is tried from its start too.
  for (const from of scheme ? (scheme[0].endsWith('/') ? [scheme[0].length] : [scheme[0].length, 0]) : [0]) {
    const user = /^[^:@/?#\s]*:/.exec(url.slice(from));
    if (!user) continue;
    const start = from + user[0].length;
    const stop = url.slice(start).search(/[?#\s]/);
    const end = stop < 0 ? url.length : start + stop;
    const at = url.lastIndexOf('@', end - 1);
    if (at >= start) return [start, at];
  }
  return null;
}

/** The URL with its password replaced by ***: postgres://user:***@host:port/db (and ?password=***). */
export function redactUrl(url: string): string {
  const span = passwordSpan(url);
  const masked = span ? `${url.slice(0, span[0])}***${url.slice(span[1])}` : url;
  return masked.replace(QUERY_PASSWORD, '$1***');
}

/** The passwords a URL carries (as written and decoded), or none. */
function urlPasswords(url: string): string[] {
  const span = passwordSpan(url);
  const q = new RegExp(QUERY_PASSWORD.source, 'i').exec(url);
  const out: string[] = [];
  for (const raw of [span ? url.slice(span[0], span[1]) : undefined, q?.[2]]) {
    if (!raw) continue;
    out.push(raw);
    try {
      out.push(decodeURIComponent(raw));
    } catch {
      // not %-encoded validly: the raw text is all there is
    }
  }
  return out;
}

/**
 * A redactor for texts about `url`: its password and PGPASSWORD become ***, wherever they appear (pg and
 * the server write their own messages; none is known to echo a password, but none is trusted not to).
 */
export function redactor(url: string): Redact {
  const secrets = [...urlPasswords(url), process.env.PGPASSWORD ?? ''].filter((s) => s.length > 0);
  // Longest first, so a password that contains another secret is masked whole.
  secrets.sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text.split(url).join(redactUrl(url));
    for (const s of secrets) out = out.split(s).join('***');
    return out;
  };
}

/** Who and where a URL connects to, as pg reads it (PGUSER, PGHOST… fill what the URL lacks). */
export interface PgTarget {
  url: string;
  user: string;
  host: string;
  port: number;
  database: string;
  /** The URL without its password, for messages. */
  shown: string;
  redact: Redact;
}

export function pgTarget(url: string): PgTarget {
  const redact = redactor(url);
  // pg reads any string as a connection string (a bare word is a database on the local socket): ask
  // for the URL form the documentation gives, so that a typo is not taken for a host or a database.
  if (!/^postgres(ql)?:\/\/[^/]/i.test(url.trim())) {
    throw new PgConnectionError(`expected a URL postgres://user[:password]@host:port/database, found ${redactUrl(url)}`);
  }
  let probe: pg.Client;
  try {
    // Constructing a client only parses: no socket is opened.
    probe = new pg.Client({ connectionString: url });
  } catch (err) {
    throw new PgConnectionError(
      `expected a URL postgres://user[:password]@host:port/database, found ${redactUrl(url)}: ${redact((err as Error).message)}`,
    );
  }
  return { url, user: probe.user ?? '', host: probe.host, port: probe.port, database: probe.database ?? '', shown: redactUrl(url), redact };
}

/**
 * The password when the server asks for one and neither the URL nor PGPASSWORD gives it: ~/.pgpass (or
 * PGPASSFILE), as pg 8 itself looks it up, else a PasswordMissingError. pg 8 without a password goes on
 * with none: SCRAM then fails only after the client has stopped answering, the server waits for its
 * authentication_timeout (60 s) and the open socket keeps the process alive that long.
 */
function passwordLookup(target: PgTarget): () => Promise<string> {
  return () =>
    new Promise((resolve, reject) => {
      const missing = () => reject(new PasswordMissingError());
      let pgpass: ((conn: object, cb: (pass: string | undefined) => void) => void) | undefined;
      try {
        // pg's own dependency, resolved from pg's folder (rowsim does not depend on it directly).
        const fromPg = createRequire(createRequire(import.meta.url).resolve('pg'));
        pgpass = fromPg('pgpass') as typeof pgpass;
      } catch {
        pgpass = undefined;
      }
      if (!pgpass) return missing();
      pgpass({ host: target.host, port: target.port, database: target.database, user: target.user }, (pass) =>
        pass ? resolve(pass) : missing(),
      );
    });
}

/** What went wrong while connecting, in one line without the password. */
function connectFailure(err: unknown, target: PgTarget, timeoutMs: number): PgConnectionError {
  if (err instanceof PasswordMissingError) {
    return new PgConnectionError(
      `the server asks for a password for user ${target.user} and the URL gives none: put it in the URL (postgres://${target.user}:PASSWORD@${target.host}:${target.port}/${target.database}) or in PGPASSWORD`,
    );
  }
  const message = target.redact(err instanceof Error ? err.message : String(err));
  if (message === 'timeout expired') {
    return new PgConnectionError(
      `cannot connect to ${target.shown}: no answer from ${target.host}:${target.port} within ${timeoutMs / 1000} s`,
    );
  }
  return new PgConnectionError(`cannot connect to ${target.shown}: ${message}`);
}

interface ConnectOptions {
  timeoutMs?: number;
  /** Called with errors the client reports outside a query (the connection dropped while idle). */
  onError?: (err: Error) => void;
}

/**
 * A connected client. It always has an 'error' listener: pg emits 'error' when the server ends the
 * connection, and an unheard 'error' event ends node with a stack trace.
 */
export async function connect(target: PgTarget, options: ConnectOptions = {}): Promise<pg.Client> {
  const timeoutMs = options.timeoutMs ?? CONNECT_TIMEOUT_MS;
  const client = new pg.Client({ connectionString: target.url, connectionTimeoutMillis: timeoutMs });
  client.on('error', (err) => options.onError?.(err));
  // No password from the URL or PGPASSWORD (pg read both): look one up only when the server asks.
  // pg calls a function-valued password at that moment (the constructor's own password option cannot
  // be used: a connection string without a password overrides it).
  if (client.password == null) (client as { password?: unknown }).password = passwordLookup(target);
  try {
    await client.connect();
  } catch (err) {
    await closeClient(client);
    throw connectFailure(err, target, timeoutMs);
  }
  return client;
}

/**
 * End a client without waiting on the server more than a moment: after a failed authentication or a
 * lost connection the socket may still be open, and an open socket keeps the process alive.
 */
export async function closeClient(client: pg.Client, waitMs = 1000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const ended = client.end().catch(() => undefined);
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), waitMs)));
  const r = await Promise.race([ended, late]);
  clearTimeout(timer);
  if (r === 'late') client.connection.stream.destroy();
}

/** SQLSTATE class 08 (connection exception) and the shutdown / termination codes of class 57. */
const LOST_CODES = new Set(['57P01', '57P02', '57P03', '57P05']);
const LOST_NODE_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNREFUSED', 'ETIMEDOUT', 'ECONNABORTED', 'EHOSTUNREACH', 'ENETUNREACH']);
const LOST_MESSAGES = [/^Connection terminated/, /not queryable/, /^timeout expired$/];

/** The connection is gone (backend terminated, server stopped, network), as opposed to an SQL error. */
export function isConnectionLost(err: unknown): boolean {
  if (err instanceof PgConnectionError) return true;
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' && (LOST_CODES.has(code) || code.startsWith('08') || LOST_NODE_CODES.has(code))) return true;
  return LOST_MESSAGES.some((re) => re.test(err.message));
}
