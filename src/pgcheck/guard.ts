/**
 * What pg-check leaves on the server when it does not end normally. A run holds a scratch schema
 * (scratch.ts); pgCheck drops it in a finally, which cannot help when:
 *   - a signal (Ctrl-C, a container stop) arrives: the connection is busy with a statement, and the
 *     statement's open transaction holds locks a DROP SCHEMA would wait for. The guard opens a second
 *     connection, terminates the first one's backend, drops the schema from there and the run exits
 *     130 (SIGINT) / 143 (SIGTERM) / 129 (SIGHUP);
 *   - the connection is lost (backend terminated, server stopped): the guard reconnects once to drop
 *     the schema, or says which schema is left behind and how to drop it.
 * Every message is one line without a stack trace or a password.
 */
import type pg from 'pg';
import { closeClient, connect, PgConnectionError, type PgTarget } from './connection.js';
import type { ScratchSchema } from './scratch.js';

import { SIGNAL_EXIT, STOP_SIGNALS, type StopSignal } from '../util/cleanup.js';

export { SIGNAL_EXIT, type StopSignal };

/** The second connection, and the reconnect after a loss, give up sooner than a first connect. */
const CLEANUP_CONNECT_TIMEOUT_MS = 5000;
/** pg_terminate_backend waits this long for the backend to be gone (PostgreSQL 14+). */
const TERMINATE_WAIT_MS = 5000;

export class CheckGuard {
  /** The main connection and its backend (SELECT pg_backend_pid()). */
  client?: pg.Client;
  backendPid?: number;
  /** The scratch schema that may exist: set before its CREATE is sent, cleared once dropped. */
  schema?: ScratchSchema;
  /** Why the main connection dropped while no query was running (pg's 'error' event). */
  lostReason?: string;
  private stopping?: Promise<number>;
  private readonly handlers = {
    SIGINT: () => this.onSignal('SIGINT'),
    SIGTERM: () => this.onSignal('SIGTERM'),
    SIGHUP: () => this.onSignal('SIGHUP'),
  };

  constructor(
    private readonly target: PgTarget,
    private readonly say: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
  ) {}

  listen(): void {
    for (const sig of STOP_SIGNALS) process.on(sig, this.handlers[sig]);
  }

  unlisten(): void {
    for (const sig of STOP_SIGNALS) process.off(sig, this.handlers[sig]);
  }

  /** The exit status once a signal's cleanup is done, or undefined when no signal came. */
  get stopped(): Promise<number> | undefined {
    return this.stopping;
  }

  private onSignal(sig: StopSignal): void {
    if (this.stopping) {
      // A second signal: the user will not wait for the cleanup.
      this.say(`rowsim pg-check: ${sig} again: exiting${this.schema ? `; ${this.leftBehind()}` : ''}`);
      process.exit(SIGNAL_EXIT[sig]);
    }
    this.stopping = this.stop(sig);
  }

  private async stop(sig: StopSignal): Promise<number> {
    const code = SIGNAL_EXIT[sig];
    if (!this.schema || this.backendPid === undefined) {
      // Nothing on the server yet: closing the connection ends whatever statement runs.
      if (this.client) await closeClient(this.client);
      this.say(`rowsim pg-check: stopped by ${sig}`);
      return code;
    }
    this.say(`rowsim pg-check: stopped by ${sig}; ${await this.dropFromElsewhere(this.backendPid)}`);
    if (this.client) await closeClient(this.client);
    return code;
  }

  /** Terminate the main backend from a second connection, then drop the schema from there. */
  private async dropFromElsewhere(backendPid: number): Promise<string> {
    let second: pg.Client;
    try {
      second = await connect(this.target, { timeoutMs: CLEANUP_CONNECT_TIMEOUT_MS });
    } catch (err) {
      return `could not connect to drop its schema (${reason(err, this.target)}): ${this.leftBehind()}`;
    }
    try {
      await second.query('SELECT pg_terminate_backend($1, $2)', [backendPid, TERMINATE_WAIT_MS]);
      // Read only now: the run may have dropped its schema itself before its backend was gone.
      return await this.dropWith(second);
    } catch (err) {
      return `could not drop its schema (${reason(err, this.target)}): ${this.leftBehind()}`;
    } finally {
      await closeClient(second);
    }
  }

  /** After a lost connection: one line saying so, and what became of the schema (reconnected once). */
  async lost(err: unknown): Promise<string> {
    // A query sent after the loss only says the client is not queryable: the loss itself says why.
    const said = reason(err, this.target);
    const why = /not queryable/.test(said) && this.lostReason ? this.lostReason : said;
    const head = `lost the connection to ${this.target.shown}: ${why}`;
    if (this.client) await closeClient(this.client);
    if (!this.schema) return head;
    let again: pg.Client;
    try {
      again = await connect(this.target, { timeoutMs: CLEANUP_CONNECT_TIMEOUT_MS });
    } catch (e) {
      return `${head}; could not reconnect to drop its schema (${reason(e, this.target)}): ${this.leftBehind()}`;
    }
    try {
      return `${head}; reconnected: ${await this.dropWith(again)}`;
    } catch (e) {
      return `${head}; reconnected but could not drop its schema (${reason(e, this.target)}): ${this.leftBehind()}`;
    } finally {
      await closeClient(again);
    }
  }

  /** What is left of the schema, and how to drop it. */
  leftBehind(): string {
    const s = this.schema;
    return s ? `schema ${s.ident} is left behind; drop it with: ${s.dropSql}` : 'its schema was already dropped';
  }

  private async dropWith(client: pg.Client): Promise<string> {
    const s = this.schema;
    if (!s) return 'its schema was already dropped';
    const status = await s.drop(client);
    this.schema = undefined;
    if (status === 'dropped') return `dropped its schema ${s.ident}`;
    if (status === 'absent') return `its schema ${s.ident} did not exist`;
    return `left schema ${s.ident} alone: it no longer carries this run's marker (a comment starting "rowsim pg-check")`;
  }
}

/** An error's message, password masked. */
function reason(err: unknown, target: PgTarget): string {
  if (err instanceof PgConnectionError) return err.message;
  return target.redact(err instanceof Error ? err.message : String(err));
}
