/**
 * The text of a DDL script as the reader (src/table/ddl.ts) takes it: its tokens with their lines and
 * columns, where statements start, the `sp_addtype` types it declares, and the signs of the DBMS it was
 * written for.
 */
import type { DdlDbms, DdlDialect, DdlSetting, DdlStorage } from '../config/spec.js';
import type { DdlGrammar } from './ddl-options.js';

export class DdlError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
  }
}

export interface Token {
  text: string;
  upper: string;
  kind: 'word' | 'number' | 'punct' | 'string';
  line: number;
  column: number;
  /** The first token on its line (a `go` batch separator, a statement that starts a line). */
  lineStart: boolean;
  /** A [bracketed] identifier (SQL Server's quoting). */
  bracketed?: boolean;
}

export function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let line = 1;
  let col = 1;
  let lastLine = 0;
  const adv = (n: number) => {
    for (let k = 0; k < n; k++) {
      if (sql[i] === '\n') {
        line++;
        col = 1;
      } else col++;
      i++;
    }
  };
  const push = (text: string, upper: string, kind: Token['kind'], start: { line: number; column: number }) => {
    out.push({ text, upper, kind, ...start, lineStart: start.line !== lastLine });
    lastLine = start.line;
  };
  while (i < sql.length) {
    const c = sql[i]!;
    if (/\s/.test(c)) {
      adv(1);
      continue;
    }
    if (c === '-' && sql[i + 1] === '-') {
      while (i < sql.length && sql[i] !== '\n') adv(1);
      continue;
    }
    if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      adv((end < 0 ? sql.length : end + 2) - i);
      continue;
    }
    const start = { line, column: col };
    let m: RegExpExecArray | null;
    const rest = sql.slice(i);
    if ((m = /^\[\s*\d*\s*\]/.exec(rest))) {
      // An array's brackets (integer[], text[3]): not a bracketed identifier.
      push(m[0], m[0], 'punct', start);
      adv(m[0].length);
    } else if ((m = /^[A-Za-z_#@][A-Za-z0-9_$#@]*/.exec(rest)) || (m = /^"[^"]*"|^\[[^\]]*\]|^`[^`]*`/.exec(rest))) {
      const raw = m[0];
      const text = /^["[`]/.test(raw) ? raw.slice(1, -1) : raw;
      push(text, text.toUpperCase(), 'word', start);
      if (raw.startsWith('[')) out[out.length - 1]!.bracketed = true;
      adv(raw.length);
    } else if ((m = /^\d+(?:\.\d+)?/.exec(rest))) {
      push(m[0], m[0], 'number', start);
      adv(m[0].length);
    } else if ((m = /^'(?:[^']|'')*'/.exec(rest))) {
      push(m[0], m[0], 'string', start);
      adv(m[0].length);
    } else if (c === "'") {
      throw new DdlError("expected a closing ' for the string that starts here, found the end of the DDL", start.line, start.column);
    } else {
      push(c, c, 'punct', start);
      adv(1);
    }
  }
  return out;
}

/** Words of a column definition or a table's body the reader knows. */
export const CONSTRAINT_STARTS = new Set(['CONSTRAINT', 'PRIMARY', 'UNIQUE', 'FOREIGN', 'CHECK', 'INDEX', 'KEY']);
/** Column attributes that do not change a row's size: one word, or one word and its operand. */
export const SINGLE_WORD_ATTRIBUTES = new Set([
  'UNSIGNED',
  'SIGNED',
  'ZEROFILL',
  'AUTO_INCREMENT',
  'AUTOINCREMENT',
  'SPARSE',
  'ROWGUIDCOL',
  'FILESTREAM',
  'CLUSTERED',
  'NONCLUSTERED',
  'VISIBLE',
  'INVISIBLE',
  'BINARY',
  'MATERIALIZED',
  'PERSISTED',
  'STORED',
  'VIRTUAL',
]);
export const ATTRIBUTES_WITH_OPERAND = new Set(['COLLATE', 'CONSTRAINT', 'COMMENT', 'CHARSET', 'STORAGE', 'COMPRESSION']);

/** CREATE … whose body runs to the end of its batch (`go`). */
export const CREATE_BATCHES = new Set([
  'TRIGGER',
  'VIEW',
  'PROCEDURE',
  'PROC',
  'FUNCTION',
  'DEFAULT',
  'RULE',
  'SCHEMA',
  'SERVICE',
  'ENCRYPTION',
]);
/** CREATE … of one statement that holds no table definition (pg_dump's sequences, statistics, extensions): read past to its end. */
export const CREATE_STATEMENTS = new Set(['SEQUENCE', 'STATISTICS', 'EXTENSION']);

/** Statements of a ddlgen (or isql) script that hold no table definition: read past. */
export const SKIPPED_STATEMENTS = new Set([
  'COMMENT',
  'USE',
  'PRINT',
  'SETUSER',
  'GRANT',
  'REVOKE',
  'EXEC',
  'EXECUTE',
  'DBCC',
  'CHECKPOINT',
  'DECLARE',
  'SET',
  'IF',
  'DROP',
  'ALTER',
  'DUMP',
  'COMMIT',
  'BEGIN',
  'UPDATE',
  'SELECT',
]);
export function isStatementStart(t: Token): boolean {
  return t.upper === 'CREATE' || t.upper === 'GO' || SKIPPED_STATEMENTS.has(t.upper) || /^SP_/.test(t.upper);
}

export function unquote(t: Token): string {
  return t.kind === 'string' ? t.text.slice(1, -1).replace(/''/g, "'") : t.text;
}

/** A user-defined type of `sp_addtype`: its base type's spelling and whether it allows NULL. */
export interface UserType {
  base: string;
  nullable: boolean;
}

/** The `sp_addtype name, 'base type' [, 'null' | 'not null']` calls anywhere in the script. */
export function userTypes(toks: Token[]): Map<string, UserType> {
  const types = new Map<string, UserType>();
  for (let i = 0; i < toks.length; i++) {
    if (toks[i]!.upper !== 'SP_ADDTYPE') continue;
    const args: string[] = [];
    let k = i + 1;
    // Arguments: name, type [, nulltype], each a word, a string or a type with its (length).
    while (k < toks.length && args.length < 3 && !toks[k]!.lineStart) {
      let text = unquote(toks[k]!);
      k++;
      if (toks[k]?.text === '(') {
        const close = toks.findIndex((t, j) => j > k && t.text === ')');
        if (close < 0) break;
        text += `(${toks
          .slice(k + 1, close)
          .map((t) => t.text)
          .join('')})`;
        k = close + 1;
      }
      args.push(text);
      if (toks[k]?.text !== ',') break;
      k++;
    }
    if (args.length >= 2) types.set(args[0]!.toLowerCase(), { base: args[1]!, nullable: /^null$/i.test((args[2] ?? '').trim()) });
  }
  return types;
}

/**
 * The DBMS a DDL was written for, where its text shows it: ASE (`lock datarows`, `with exp_row_size`,
 * reservepagegap, max_rows_per_page, `on 'segment'`, `sp_addtype`, `setuser`: ddlgen), SQL Server
 * (`[bracketed]` names, `SET ANSI_NULLS`, TEXTIMAGE_ON: SSMS), PostgreSQL (`WITH (fillfactor=…)`,
 * `ALTER TABLE ONLY`, `public.` or `pg_catalog.` names: pg_dump), Oracle (PCTFREE). `go` is not a sign:
 * ASE's isql and SQL Server's sqlcmd both take it. The first sign from the CREATE TABLE on, when every
 * sign names one DBMS; undefined when there is none, or signs of two.
 */
export function ddlDialect(toks: Token[], storage: DdlStorage, grammar: DdlGrammar): DdlDialect | undefined {
  const signs: DdlDialect[] = [];
  const add = (value: DdlDbms, sign: string, at: { line: number; column: number } | undefined) => {
    if (at) signs.push({ value, sign, line: at.line, column: at.column });
  };
  if (storage.lock) add(grammar.locks.get(storage.lock.value.toUpperCase()) as DdlDbms, `lock ${storage.lock.value}`, storage.lock);
  const options = storage as Record<string, DdlSetting<unknown> | undefined>;
  for (const { key, sign, dbms } of grammar.signs) add(dbms as DdlDbms, sign, options[key]);
  toks.forEach((t, i) => {
    const next = toks[i + 1];
    if (t.upper === 'SP_ADDTYPE' || (t.upper === 'SETUSER' && t.lineStart)) add('ase', t.text, t);
    else if (t.upper === 'ON' && next?.kind === 'string' && !next.lineStart) add('ase', `on ${next.text}`, t);
    else if (t.bracketed) add('sqlserver', `[${t.text}]`, t);
    else if ((t.upper === 'ANSI_NULLS' && toks[i - 1]?.upper === 'SET') || t.upper === 'TEXTIMAGE_ON')
      add('sqlserver', t.upper === 'ANSI_NULLS' ? 'SET ANSI_NULLS' : t.text, t);
    else if (t.upper === 'ONLY' && toks[i - 1]?.upper === 'TABLE' && toks[i - 2]?.upper === 'ALTER') add('postgres', 'ALTER TABLE ONLY', t);
    else if ((t.upper === 'PUBLIC' || t.upper === 'PG_CATALOG') && next?.text === '.' && !t.bracketed) add('postgres', `${t.text}.`, t);
  });
  if (signs.length === 0 || signs.some((s) => s.value !== signs[0]!.value)) return undefined;
  // The CREATE TABLE's own signs first (lock datarows rather than the sp_addtype before it).
  const from = storage.created?.line ?? 0;
  const before = (s: DdlDialect) => (s.line < from ? 1 : 0);
  return signs.sort((a, b) => before(a) - before(b) || a.line - b.line || a.column - b.column)[0];
}
