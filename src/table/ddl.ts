/**
 * A small CREATE TABLE / CREATE INDEX reader: enough SQL to take a table definition from ASE, SQL
 * Server, PostgreSQL or Oracle DDL. Errors carry the line and column in the DDL text.
 *
 * Understood: CREATE TABLE [owner.]name ( col type [NULL | NOT NULL] [DEFAULT …] [IDENTITY]
 * [PRIMARY KEY | UNIQUE] [CONSTRAINT …] …, [CONSTRAINT n] PRIMARY KEY [CLUSTERED] (cols),
 * UNIQUE (cols) ) [LOCK DATAROWS] [WITH …]; CREATE [UNIQUE] [CLUSTERED|NONCLUSTERED] INDEX n ON t (cols).
 * CLUSTERED makes the index clustered (a PRIMARY KEY without it is not: one DDL serves every format).
 * Columns are NOT NULL unless declared NULL (ASE's default; PostgreSQL users should write NULL where a
 * column is nullable).
 */
import type { ColumnDef, IndexDef } from '../config/spec.js';
import { parseType, SchemaError } from './column-types.js';

export class DdlError extends Error {
  constructor(
    message: string,
    readonly line: number,
    readonly column: number,
  ) {
    super(message);
  }
}

interface Token {
  text: string;
  upper: string;
  kind: 'word' | 'number' | 'punct' | 'string';
  line: number;
  column: number;
}

function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  let line = 1;
  let col = 1;
  const adv = (n: number) => {
    for (let k = 0; k < n; k++) {
      if (sql[i] === '\n') {
        line++;
        col = 1;
      } else col++;
      i++;
    }
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
    if ((m = /^[A-Za-z_#@][A-Za-z0-9_$#@]*/.exec(rest)) || (m = /^"[^"]*"|^\[[^\]]*\]|^`[^`]*`/.exec(rest))) {
      const raw = m[0];
      const text = /^["[`]/.test(raw) ? raw.slice(1, -1) : raw;
      out.push({ text, upper: text.toUpperCase(), kind: 'word', ...start });
      adv(raw.length);
    } else if ((m = /^\d+(?:\.\d+)?/.exec(rest))) {
      out.push({ text: m[0], upper: m[0], kind: 'number', ...start });
      adv(m[0].length);
    } else if ((m = /^'(?:[^']|'')*'/.exec(rest))) {
      out.push({ text: m[0], upper: m[0], kind: 'string', ...start });
      adv(m[0].length);
    } else if (c === "'") {
      throw new DdlError("expected a closing ' for the string that starts here, found the end of the DDL", start.line, start.column);
    } else {
      out.push({ text: c, upper: c, kind: 'punct', ...start });
      adv(1);
    }
  }
  return out;
}

export interface DdlTable {
  name: string;
  columns: ColumnDef[];
  indexes: IndexDef[];
}

const TYPE_WORDS_2 = new Set(['DOUBLE PRECISION', 'CHARACTER VARYING', 'UNSIGNED INT']);
const CONSTRAINT_STARTS = new Set(['CONSTRAINT', 'PRIMARY', 'UNIQUE', 'FOREIGN', 'CHECK', 'INDEX', 'KEY']);
/** Column attributes that do not change a row's size: one word, or one word and its operand. */
const SINGLE_WORD_ATTRIBUTES = new Set(['UNSIGNED', 'SIGNED', 'ZEROFILL', 'AUTO_INCREMENT', 'AUTOINCREMENT', 'SPARSE', 'ROWGUIDCOL', 'FILESTREAM', 'CLUSTERED', 'NONCLUSTERED', 'VISIBLE', 'INVISIBLE', 'BINARY', 'MATERIALIZED', 'PERSISTED', 'STORED', 'VIRTUAL']);
const ATTRIBUTES_WITH_OPERAND = new Set(['COLLATE', 'CONSTRAINT', 'COMMENT', 'CHARSET', 'STORAGE', 'COMPRESSION']);

export function parseDdl(sql: string): DdlTable {
  const toks = tokenize(sql);
  let p = 0;
  const eofPos = () => {
    const last = toks[toks.length - 1];
    return last ? { line: last.line, column: last.column + last.text.length } : { line: 1, column: 1 };
  };
  const fail = (msg: string, t: Token | undefined = toks[p]): never => {
    const pos = t ?? eofPos();
    throw new DdlError(msg, pos.line, pos.column);
  };
  const peek = (k = 0) => toks[p + k];
  const isWord = (w: string, k = 0) => peek(k)?.upper === w;
  const expect = (w: string): Token => {
    const t = peek();
    if (!t || t.upper !== w) fail(`expected ${w}, found ${t ? `"${t.text}"` : 'end of DDL'}`);
    p++;
    return t!;
  };
  const name = (): string => {
    const t = peek();
    if (!t || t.kind !== 'word') fail(`expected a name, found ${t ? `"${t.text}"` : 'end of DDL'}`);
    p++;
    let n = t!.text;
    while (peek()?.text === '.' && peek(1)?.kind === 'word') {
      n = peek(1)!.text;
      p += 2;
    }
    return n;
  };
  /** Where each index column was named, for problems found after the whole DDL is read. */
  const columnTokens = new Map<IndexDef, Token[]>();
  const nameList = (tokens?: Token[]): string[] => {
    expect('(');
    const names: string[] = [];
    for (;;) {
      tokens?.push(peek()!);
      names.push(name());
      while (isWord('ASC') || isWord('DESC')) p++;
      if (peek()?.text === ',') {
        p++;
        continue;
      }
      expect(')');
      return names;
    }
  };
  /** Skip a parenthesised group starting at the current `(`. */
  const skipParens = () => {
    let depth = 0;
    do {
      if (peek()!.text === '(') depth++;
      if (peek()!.text === ')') depth--;
      p++;
    } while (depth > 0 && p < toks.length);
  };
  /** Skip a balanced expression until a `,` or `)` at depth 0. */
  const skipExpr = () => {
    let depth = 0;
    while (p < toks.length) {
      const t = toks[p]!;
      if (depth === 0 && (t.text === ',' || t.text === ')')) return;
      if (t.text === '(') depth++;
      if (t.text === ')') depth--;
      p++;
    }
  };

  let table: DdlTable | undefined;
  const pendingIndexes: { idx: IndexDef; tok: Token; on: string }[] = [];
  while (p < toks.length) {
    if (peek()?.text === ';' || isWord('GO')) {
      p++;
      continue;
    }
    const startTok = peek()!;
    expect('CREATE');
    if (isWord('TABLE')) {
      p++;
      if (table) fail('one CREATE TABLE per DDL', startTok);
      const tname = name();
      expect('(');
      const columns: ColumnDef[] = [];
      const indexes: IndexDef[] = [];
      for (;;) {
        const t = peek();
        if (!t) fail('expected a column definition or ")", found end of DDL');
        if (CONSTRAINT_STARTS.has(t!.upper)) {
          let cname: string | undefined;
          if (isWord('CONSTRAINT')) {
            p++;
            cname = name();
          }
          if (isWord('PRIMARY') || isWord('UNIQUE')) {
            const unique = true;
            const primary = isWord('PRIMARY');
            p++;
            if (primary) expect('KEY');
            let clustered = false;
            while (isWord('CLUSTERED') || isWord('NONCLUSTERED')) clustered = toks[p++]!.upper === 'CLUSTERED';
            const tokens: Token[] = [];
            const cols = nameList(tokens);
            const idx = { name: cname ?? `${tname}_${primary ? 'pk' : cols.join('_') + '_key'}`, columns: cols, unique, clustered };
            columnTokens.set(idx, tokens);
            indexes.push(idx);
          }
          skipExpr();
        } else {
          const colTok = t!;
          const cname = name();
          const typeTok = peek();
          if (!typeTok || typeTok.kind !== 'word') fail(`expected a type for column ${cname}`);
          let typeText = typeTok!.text;
          p++;
          const two = `${typeTok!.upper} ${peek()?.upper ?? ''}`;
          if (TYPE_WORDS_2.has(two)) {
            typeText += ` ${peek()!.text}`;
            p++;
          }
          if (peek()?.text === '(') {
            const parts: string[] = [];
            p++;
            while (peek() && peek()!.text !== ')') {
              parts.push(peek()!.text);
              p++;
            }
            expect(')');
            typeText += `(${parts.join('')})`;
          }
          let nullable = false;
          let columnDone = false;
          while (!columnDone && peek() && peek()!.text !== ',' && peek()!.text !== ')') {
            if (isWord('NOT') && isWord('NULL', 1)) {
              nullable = false;
              p += 2;
            } else if (isWord('NULL')) {
              nullable = true;
              p++;
            } else if (isWord('PRIMARY') && isWord('KEY', 1)) {
              p += 2;
              indexes.push({ name: `${tname}_pk`, columns: [cname], unique: true, clustered: isWord('CLUSTERED') });
            } else if (isWord('UNIQUE')) {
              p++;
              indexes.push({ name: `${tname}_${cname}_key`, columns: [cname], unique: true, clustered: isWord('CLUSTERED') });
            } else if (isWord('CHECK') || isWord('REFERENCES') || isWord('IDENTITY')) {
              p++;
              if (peek()?.kind === 'word' && isWord('(', 1)) p++; // REFERENCES other (col)
              if (peek()?.text === '(') skipParens();
            } else if (isWord('DEFAULT')) {
              // A value: a literal (maybe signed), a word, a function call, a parenthesised expression.
              p++;
              if (peek()?.text === '-' || peek()?.text === '+') p++;
              if (peek()?.text === '(') skipParens();
              else if (peek() && peek()!.text !== ',' && peek()!.text !== ')') {
                p++;
                if (peek()?.text === '(') skipParens();
              }
            } else if (SINGLE_WORD_ATTRIBUTES.has(peek()!.upper)) {
              p++;
            } else if (ATTRIBUTES_WITH_OPERAND.has(peek()!.upper)) {
              p += 2; // COLLATE x, CONSTRAINT n, COMMENT 'x' …
            } else if (isWord('CHARACTER') && isWord('SET', 1)) {
              p += 3;
            } else if (isWord('ON') && isWord('UPDATE', 1)) {
              p += 3;
              if (peek()?.text === '(') skipParens();
            } else if (isWord('GENERATED')) {
              // GENERATED ALWAYS AS (expr) [STORED], GENERATED [ALWAYS | BY DEFAULT] AS IDENTITY [(…)]
              skipExpr();
            } else {
              const t = peek()!;
              fail(`expected "," or ")" after column ${cname}, found "${t.text}"${t.kind === 'word' && peek(1)?.kind === 'word' ? ' (a comma missing before it?)' : ''}`, t);
            }
          }
          try {
            columns.push({ name: cname, type: parseType(typeText), nullable });
          } catch (err) {
            if (err instanceof SchemaError) fail(`column ${cname}: expected ${err.message}`, typeTok);
            throw err;
          }
          if (columns.filter((c) => c.name.toLowerCase() === cname.toLowerCase()).length > 1) {
            fail(`column ${cname} is defined twice`, colTok);
          }
        }
        if (peek()?.text === ',') {
          p++;
          continue;
        }
        expect(')');
        break;
      }
      // table options: LOCK DATAROWS, WITH (…), WITH exp_row_size = N …, up to ';' or the next CREATE
      while (p < toks.length && !isWord('CREATE') && peek()!.text !== ';') p++;
      if (columns.length === 0) fail('a table with at least one column', startTok);
      table = { name: tname, columns, indexes };
    } else {
      let unique = false;
      let clustered = false;
      while (isWord('UNIQUE') || isWord('CLUSTERED') || isWord('NONCLUSTERED')) {
        if (isWord('UNIQUE')) unique = true;
        if (isWord('CLUSTERED')) clustered = true;
        p++;
      }
      if (!isWord('INDEX')) fail(`expected TABLE or INDEX after CREATE, found ${peek() ? `"${peek()!.text}"` : 'end of DDL'}`);
      p++;
      const iname = name();
      expect('ON');
      const on = name();
      if (isWord('USING')) p += 2;
      const tokens: Token[] = [];
      const cols = nameList(tokens);
      const idx = { name: iname, columns: cols, unique, clustered };
      columnTokens.set(idx, tokens);
      pendingIndexes.push({ idx, tok: startTok, on });
      while (p < toks.length && !isWord('CREATE') && peek()!.text !== ';') p++;
    }
  }
  if (!table) throw new DdlError('expected a CREATE TABLE statement, found none', 1, 1);
  for (const { idx, tok, on } of pendingIndexes) {
    if (on.toLowerCase() !== table.name.toLowerCase()) {
      throw new DdlError(`index ${idx.name} is on ${on}, not on table ${table.name}`, tok.line, tok.column);
    }
    table.indexes.push(idx);
  }
  const seen = new Set<string>();
  let clustered: IndexDef | undefined;
  for (const idx of table.indexes) {
    const tokens = columnTokens.get(idx) ?? [];
    idx.columns.forEach((c, k) => {
      if (!table!.columns.some((col) => col.name.toLowerCase() === c.toLowerCase())) {
        const at = tokens[k] ?? { line: 1, column: 1 };
        throw new DdlError(`index ${idx.name} names column ${c}, which the table does not have`, at.line, at.column);
      }
    });
    const key = idx.name.toLowerCase();
    if (seen.has(key)) {
      const at = pendingIndexes.find((p) => p.idx === idx)?.tok ?? tokens[0] ?? { line: 1, column: 1 };
      throw new DdlError(`expected index names not used before, found "${idx.name}" again`, at.line, at.column);
    }
    seen.add(key);
    if (idx.clustered && clustered) {
      const at = pendingIndexes.find((p) => p.idx === idx)?.tok ?? tokens[0] ?? { line: 1, column: 1 };
      throw new DdlError(`expected at most one clustered index, found ${idx.name} after ${clustered.name}`, at.line, at.column);
    }
    if (idx.clustered) clustered = idx;
  }
  return table;
}
