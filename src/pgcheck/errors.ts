/**
 * pg-check's own failures, each said in one line by the CLI (exit status 2, no stack trace):
 *   - PgCheckError: the config or the server cannot be checked as asked (before anything is created);
 *   - PgServerError: the server refused a statement of the replay (a value the type rejects, permission
 *     denied, statement timeout …): the message names the phase, the row and the server's error.
 * A lost connection is told apart by connection.ts (isConnectionLost) and handled by guard.ts.
 */

import { isConnectionLost } from './connection.js';

export class PgCheckError extends Error {}

/** Where the replay was when a statement failed: phase and row, for the message. */
export interface ReplayPlace {
  /** "phase 2 (update 100 rows (random, body))", or what ran outside the phases ("creating the table"). */
  where: string;
  /** "row 17 (its UPDATE)", when one row's statement failed. */
  row?: string;
}

/** The fields of a server error pg (node-postgres) gives: SQLSTATE, and the server's detail and hint. */
interface ServerErrorFields {
  code?: string;
  detail?: string;
  hint?: string;
  severity?: string;
}

export class PgServerError extends Error {
  constructor(
    readonly place: ReplayPlace,
    readonly sqlstate: string | undefined,
    /** The server's message, detail and SQLSTATE in one line. */
    readonly serverMessage: string,
  ) {
    super(`${place.where}${place.row ? `, ${place.row}` : ''}: the server said: ${serverMessage}`);
  }

  /**
   * An error from the server (it has a SQLSTATE), in one line with its detail; undefined for anything
   * else, and for a lost connection (the backend terminated, the server shutting down): guard.ts handles those.
   */
  static from(err: unknown, place: ReplayPlace, redact: (s: string) => string = (s) => s): PgServerError | undefined {
    if (!(err instanceof Error) || isConnectionLost(err)) return undefined;
    const f = err as Error & ServerErrorFields;
    if (typeof f.code !== 'string' || !/^[0-9A-Z]{5}$/.test(f.code) || f.severity === undefined) return undefined;
    const parts = [f.message, f.detail ? `(${f.detail})` : '', `[SQLSTATE ${f.code}]`].filter((s) => s.length > 0);
    return new PgServerError(place, f.code, redact(parts.join(' ').replace(/\s*\n\s*/g, ' ')));
  }
}
