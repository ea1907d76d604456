/**
 * A small CREATE TABLE / CREATE INDEX reader: enough SQL to take a table definition from ASE, SQL
 * Server, PostgreSQL, Oracle or MySQL DDL, as SAP ASE's `ddlgen` [R9], `pg_dump -s`, SSMS's "Script Table as",
 * Oracle's DBMS_METADATA and MySQL's SHOW CREATE TABLE / mysqldump print it (MySQL's `[UNIQUE] KEY n
 * (cols)`, display widths, ENUM/SET member lists, and `NAME=value` table options as the formats declare
 * them: DdlClauses.assignments). Errors carry the line and column in the DDL text.
 *
 * Understood: CREATE TABLE [db.][owner.]name ( col type [NULL | NOT NULL] [DEFAULT …[::type]] [IDENTITY]
 * [PRIMARY KEY | UNIQUE [CLUSTERED] [index options]] [CONSTRAINT …] …, [CONSTRAINT n] PRIMARY KEY
 * [CLUSTERED] (cols) [index options], UNIQUE (cols) ) and its table options: LOCK scheme, WITH name = N,
 * WITH (name = N, …), WORD N, as the formats declare them (StorageFormat.ddl: ASE's exp_row_size,
 * PostgreSQL's fillfactor, Oracle's PCTFREE …), ON 'segment', PARTITION BY …; CREATE [UNIQUE] [CLUSTERED|NONCLUSTERED] INDEX n ON t
 * [USING btree] (cols) [index options] (CLUSTERED makes an index clustered; a PRIMARY KEY without it is
 * not: one DDL serves every format); ALTER TABLE [ONLY] t ADD [CONSTRAINT n] PRIMARY KEY | UNIQUE (cols)
 * [index options]; user-defined types from `sp_addtype name, 'type' [, 'null' | 'not null']`. Types of
 * several words are read while their words begin one (`timestamp(3) without time zone`, `national char
 * varying(n)`, `double precision`); an array type is refused.
 *
 * Index options (src/table/ddl-options.ts says which are read, read past or refused; the formats add theirs,
 * Oracle's PCTFREE N): WITH (FILLFACTOR = N, PAD_INDEX = …, deduplicate_items = off …), with fillfactor = N,
 * max_rows_per_page = N …, ON filegroup, TABLESPACE, USING INDEX …. A setting becomes the index's, exactly as `table.indexes` sets it; an option
 * that changes storage in a way rowsim does not model, or one it does not know, is an error at its position.
 *
 * A script's other statements are read past: `go` batch separators, `use`, `print`, `setuser`,
 * `grant`/`revoke`, `exec`, `set`, `select`, `comment on`, system procedures (`sp_addgroup`, `sp_bindefault`
 * …), `if`, `drop`, `alter table` without a key, CREATE SEQUENCE / STATISTICS / EXTENSION statements and
 * whole batches of CREATE TRIGGER / VIEW / PROCEDURE. Any other statement is an error at its first word.
 *
 * A column declared neither NULL nor NOT NULL is NOT NULL (ASE's default), except in DDL that shows itself
 * the DBMS's of a format whose DdlClauses say nullableByDefault (PostgreSQL, Oracle); a PRIMARY KEY's
 * columns are never NULL. The script's text (tokens, sp_addtype types, the dialect's signs): ddl-script.ts.
 */
import type { ColumnDef, DdlDbms, DdlDialect, DdlSetting, DdlStorage, IndexDef, LockScheme } from '../config/spec.js';

export type { DdlDbms, DdlDialect, DdlSetting, DdlStorage, LockScheme };
import { parseType, SchemaError } from '../config/column-types.js';
import { INDEX_CLAUSES, INDEX_COMMENT_SETTINGS, INDEX_WITH_OPTIONS, type DdlGrammar, type OptionRule } from './ddl-options.js';
import { ddlGrammar } from '../formats/registry.js';
import { beginsMultiWordType, DdlTokens } from './ddl-tokens.js';
import { MAX_COLUMNS } from '../config/limits.js';
import {
  ATTRIBUTES_WITH_OPERAND,
  CONSTRAINT_STARTS,
  CREATE_BATCHES,
  CREATE_STATEMENTS,
  SINGLE_WORD_ATTRIBUTES,
  DdlError,
  ddlDialect,
  isStatementStart,
  SKIPPED_STATEMENTS,
  tokenize,
  unquote,
  userTypes,
  type Token,
  type UserType,
} from './ddl-script.js';

export { DdlError };

interface DdlTable {
  name: string;
  columns: ColumnDef[];
  indexes: IndexDef[];
  storage: DdlStorage;
}

export function parseDdl(sql: string): DdlTable {
  return new DdlReader(tokenize(sql), ddlGrammar()).read();
}

/** The reader: one method per statement; `p` is the position in the token list. */
class DdlReader extends DdlTokens {
  private table: DdlTable | undefined;
  private readonly pendingIndexes: { idx: IndexDef; tok: Token; on: string }[] = [];
  /** Where each index column was named, for problems found after the whole DDL is read. */
  private readonly columnTokens = new Map<IndexDef, Token[]>();
  private readonly types: Map<string, UserType>;
  private database: string | undefined;
  private owner: string | undefined;
  /** Where each index setting was written (DdlStorage.indexOptions). */
  private readonly settingsAt: { idx: IndexDef; key: string; line: number; column: number }[] = [];
  /** Columns declared neither NULL nor NOT NULL, and the columns of a PRIMARY KEY (never NULL). */
  private readonly undeclared = new Set<string>();
  private readonly keyColumns = new Set<string>();
  /** The column's CHARACTER SET, while its attributes are read. */
  private characterSet: string | undefined;

  constructor(
    toks: Token[],
    /** Every format's storage clauses (src/formats/registry.ts ddlGrammar). */
    private readonly grammar: DdlGrammar,
  ) {
    super(toks);
    this.types = userTypes(toks);
  }

  // ---- statements --------------------------------------------------------------------------------

  read(): DdlTable {
    while (this.p < this.toks.length) {
      const t = this.peek()!;
      if (t.text === ';' || t.upper === 'GO') {
        this.p++;
        // `go 2` runs the batch twice: the count is not a statement.
        if (t.upper === 'GO' && this.peek()?.kind === 'number' && !this.peek()!.lineStart) this.p++;
      } else if (t.upper === 'CREATE') {
        this.create();
      } else if (t.upper === 'USE' && this.peek(1)?.kind === 'word') {
        this.database = this.peek(1)!.text;
        this.skipStatement();
      } else if (t.upper === 'SETUSER') {
        const who = this.peek(1);
        this.owner = who && !who.lineStart && who.kind === 'string' ? unquote(who) : undefined;
        this.skipStatement();
      } else if (t.upper === 'ALTER' && this.isWord('TABLE', 1)) {
        this.alterTable();
      } else if (SKIPPED_STATEMENTS.has(t.upper) || /^SP_/.test(t.upper)) {
        this.skipStatement();
      } else {
        this.fail(
          `expected CREATE TABLE (or a statement a ddlgen script holds around it: go, use, print, setuser, grant, exec, sp_…), found ${this.found(t)}`,
          t,
        );
      }
    }
    const table = this.finish();
    const dialect = ddlDialect(this.toks, table.storage, this.grammar);
    if (dialect) table.storage.dialect = dialect;
    // In the dialects whose formats say so (PostgreSQL, Oracle: pg_dump and DBMS_METADATA print nothing for a
    // nullable column) columns are nullable unless declared NOT NULL; ASE's default is NOT NULL.
    if (dialect && this.grammar.nullableByDefault.has(dialect.value)) {
      for (const c of table.columns)
        if (this.undeclared.has(c.name.toLowerCase()) && !this.keyColumns.has(c.name.toLowerCase())) c.nullable = true;
    }
    return table;
  }

  private create(): void {
    const startTok = this.peek()!;
    this.expect('CREATE');
    if (this.isWord('TABLE')) {
      this.p++;
      if (this.table) this.fail('one CREATE TABLE per DDL', startTok);
      this.createTable(startTok);
      return;
    }
    if (this.peek() && CREATE_STATEMENTS.has(this.peek()!.upper)) {
      this.skipStatement();
      return;
    }
    if (this.peek() && CREATE_BATCHES.has(this.peek()!.upper)) {
      this.skipBatch();
      return;
    }
    let unique = false;
    let clustered = false;
    while (this.isWord('UNIQUE') || this.isWord('CLUSTERED') || this.isWord('NONCLUSTERED')) {
      if (this.isWord('UNIQUE')) unique = true;
      if (this.isWord('CLUSTERED')) clustered = true;
      this.p++;
    }
    if (!this.isWord('INDEX')) this.fail(`expected TABLE or INDEX after CREATE, found ${this.found()}`);
    this.p++;
    // PostgreSQL: CREATE INDEX [CONCURRENTLY] [IF NOT EXISTS] n ON [ONLY] t [USING btree] (cols).
    if (this.isWord('CONCURRENTLY')) this.p++;
    if (this.isWord('IF') && this.isWord('NOT', 1) && this.isWord('EXISTS', 2)) this.p += 3;
    const iname = this.name();
    this.expect('ON');
    if (this.isWord('ONLY') && this.peek(1)?.kind === 'word') this.p++;
    const on = this.name();
    if (this.isWord('USING')) this.indexMethod();
    const tokens: Token[] = [];
    const cols = this.nameList(tokens);
    const idx: IndexDef = { name: iname, columns: cols, unique, clustered };
    this.columnTokens.set(idx, tokens);
    this.pendingIndexes.push({ idx, tok: startTok, on });
    this.indexOptions(idx, 'statement');
  }

  /** PostgreSQL's `USING method`: rowsim models B-trees only. */
  private indexMethod(): void {
    const m = this.peek(1);
    if (!m || m.upper !== 'BTREE')
      this.fail(`expected USING btree (rowsim models B-tree indexes), found USING ${m ? m.text : 'end of DDL'}`, m ?? this.peek());
    this.p += 2;
  }

  /** ALTER TABLE t ADD [CONSTRAINT n] PRIMARY KEY | UNIQUE [CLUSTERED] (cols): an index; other ALTERs are read past. */
  private alterTable(): void {
    const startTok = this.peek()!;
    const save = this.p;
    this.p += 2;
    // ALTER TABLE [IF EXISTS] [ONLY] t (PostgreSQL, as pg_dump writes it)
    if (this.isWord('IF') && this.isWord('EXISTS', 1)) this.p += 2;
    if (this.isWord('ONLY') && this.peek(1)?.kind === 'word') this.p++;
    const on = this.name();
    if (this.isWord('ADD')) {
      this.p++;
      const idx = this.keyConstraint(on);
      if (idx) this.pendingIndexes.push({ idx, tok: startTok, on });
    }
    this.p = Math.max(this.p, save + 1);
    this.skipRestOfStatement();
  }

  private createTable(startTok: Token): void {
    const { name: tname, qualifiers } = this.qualifiedName();
    this.expect('(');
    const columns: ColumnDef[] = [];
    const indexes: IndexDef[] = [];
    for (;;) {
      const t = this.peek();
      if (!t) this.fail('expected a column definition or ")", found end of DDL');
      if (CONSTRAINT_STARTS.has(t!.upper)) this.tableConstraint(tname, indexes);
      else this.column(tname, columns, indexes);
      if (this.peek()?.text === ',') {
        this.p++;
        continue;
      }
      this.expect(')');
      break;
    }
    const storage = this.tableOptions();
    if (columns.length === 0) this.fail('a table with at least one column', startTok);
    const database = qualifiers.length >= 2 ? qualifiers[qualifiers.length - 2] : this.database;
    const owner = qualifiers.length >= 1 && qualifiers[qualifiers.length - 1] !== '' ? qualifiers[qualifiers.length - 1] : this.owner;
    if (database) storage.database = database;
    if (owner) storage.owner = owner;
    storage.created = { value: tname, line: startTok.line, column: startTok.column };
    this.table = { name: tname, columns, indexes, storage };
  }

  private tableConstraint(tname: string, indexes: IndexDef[]): void {
    const idx = this.keyConstraint(tname);
    if (idx) indexes.push(idx);
    this.skipExpr();
  }

  /**
   * `[CONSTRAINT name] PRIMARY KEY | UNIQUE [CLUSTERED | NONCLUSTERED] (cols)` of table `tname` (in CREATE
   * TABLE or ALTER TABLE … ADD): its unique index, named after the constraint, else after the table
   * (`t_pk`, `t_a_b_key`); undefined for any other constraint.
   */
  private keyConstraint(tname: string): IndexDef | undefined {
    let cname: string | undefined;
    if (this.isWord('CONSTRAINT')) {
      this.p++;
      cname = this.name();
    }
    if (!this.isWord('PRIMARY') && !this.isWord('UNIQUE') && !this.isWord('KEY') && !this.isWord('INDEX')) return undefined;
    const primary = this.isWord('PRIMARY');
    const unique = primary || this.isWord('UNIQUE');
    this.p++;
    if (primary) this.expect('KEY');
    else if (unique && (this.isWord('KEY') || this.isWord('INDEX'))) this.p++;
    let clustered = false;
    while (this.isWord('CLUSTERED') || this.isWord('NONCLUSTERED')) clustered = this.toks[this.p++]!.upper === 'CLUSTERED';
    // MySQL: [KEY | INDEX] name [USING BTREE] (cols), as SHOW CREATE TABLE and mysqldump print them.
    const iname = this.peek()?.text !== '(' && !this.isWord('USING') ? this.name() : undefined;
    if (this.isWord('USING')) this.indexMethod();
    const tokens: Token[] = [];
    const cols = this.nameList(tokens);
    if (primary) for (const c of cols) this.keyColumns.add(c.toLowerCase());
    const fallback = `${tname}_${primary ? 'pk' : `${cols.join('_')}_${unique ? 'key' : 'idx'}`}`;
    const idx: IndexDef = { name: cname ?? iname ?? fallback, columns: cols, unique, clustered };
    this.columnTokens.set(idx, tokens);
    this.indexOptions(idx, 'constraint');
    return idx;
  }

  /**
   * The column's type spelling: its words while they begin a type of several words (`double precision`,
   * `timestamp (3) without time zone`, `national char varying`), with its parenthesised parameters.
   */
  private columnType(cname: string): { text: string; tok: Token } {
    const typeTok = this.peek();
    if (!typeTok || typeTok.kind !== 'word') this.fail(`expected a type for column ${cname}`);
    const words = [typeTok!.text];
    let params = '';
    this.p++;
    for (;;) {
      const next = this.peek();
      if (next?.text === '(' && params === '') {
        const parts: string[] = [];
        let strings = 0;
        this.p++;
        while (this.peek() && this.peek()!.text !== ')') {
          if (this.peek()!.kind === 'string') strings++;
          parts.push(this.peek()!.text);
          this.p++;
        }
        this.expect(')');
        // A list of quoted values (MySQL's ENUM and SET): the type's parameter is how many there are.
        params = strings > 0 ? `(${strings})` : `(${parts.join('')})`;
        words.push(params);
      } else if (
        next?.kind === 'word' &&
        !next.text.startsWith('[') &&
        beginsMultiWordType([...words.filter((w) => !w.startsWith('(')), next.text].join(' '))
      ) {
        words.push(next.text);
        this.p++;
      } else break;
    }
    if (this.peek()?.kind === 'punct' && this.peek()!.text.startsWith('[')) {
      this.fail(
        `column ${cname}: expected a type rowsim can size, found an array (${words.join(' ')}${this.peek()!.text}): an array's values are a varlena of a header, dimensions and elements, which rowsim does not model (declare the column text or bytea of the array's length to size it)`,
      );
    }
    return { text: words.join(' ').replace(/ \(/, '('), tok: typeTok! };
  }

  private column(tname: string, columns: ColumnDef[], indexes: IndexDef[]): void {
    const colTok = this.peek()!;
    if (columns.length === MAX_COLUMNS)
      this.fail(
        `table ${tname}: expected at most ${MAX_COLUMNS.toLocaleString('en-US')} columns (PostgreSQL's 1,600, the most of any format), found more`,
      );
    const cname = this.name();
    const type = this.columnType(cname);
    const udt = this.types.get(type.text.toLowerCase());
    let nullable: boolean | undefined;
    this.characterSet = undefined;
    while (this.peek() && this.peek()!.text !== ',' && this.peek()!.text !== ')') {
      const declared = this.columnAttribute(tname, cname, indexes);
      if (declared !== undefined) nullable = declared;
    }
    if (nullable === undefined && udt === undefined) this.undeclared.add(cname.toLowerCase());
    try {
      const typed = parseType(`${udt ? udt.base : type.text}${this.characterSet ? ` character set ${this.characterSet}` : ''}`);
      columns.push({ name: cname, type: typed, nullable: nullable ?? udt?.nullable ?? false });
    } catch (err) {
      if (err instanceof SchemaError) {
        const hint = udt
          ? ` (the base type of user-defined type ${type.text})`
          : /^[a-z_][a-z0-9_]*$/i.test(type.text)
            ? ` (a user-defined type? add its sp_addtype ${type.text}, '<base type>' line to the DDL)`
            : '';
        this.fail(`column ${cname}: expected ${err.message}${hint}`, type.tok);
      }
      throw err;
    }
    if (columns.filter((c) => c.name.toLowerCase() === cname.toLowerCase()).length > 1) {
      this.fail(`column ${cname} is defined twice`, colTok);
    }
  }

  /** A column's `CHARACTER SET name`: one a format models (DdlClauses.charsets). */
  private columnCharset(cname: string): void {
    const t = this.peek();
    const name = t ? unquote(t).toLowerCase() : '';
    if (!this.grammar.charsets.includes(name))
      this.fail(
        `column ${cname}: expected CHARACTER SET ${this.grammar.charsets.join(', ')}, found ${this.found(t)}`,
        t ?? this.toks[this.p - 1],
      );
    this.characterSet = name;
    this.p++;
  }

  /** One attribute after a column's type; returns the nullability it declares, if it declares one. */
  private columnAttribute(tname: string, cname: string, indexes: IndexDef[]): boolean | undefined {
    if (this.isWord('NOT') && this.isWord('NULL', 1)) {
      this.p += 2;
      return false;
    }
    if (this.isWord('NULL')) {
      this.p++;
      return true;
    }
    if ((this.isWord('PRIMARY') && this.isWord('KEY', 1)) || this.isWord('UNIQUE')) {
      const primary = this.isWord('PRIMARY');
      this.p += primary ? 2 : 1;
      let clustered = false;
      while (this.isWord('CLUSTERED') || this.isWord('NONCLUSTERED')) clustered = this.toks[this.p++]!.upper === 'CLUSTERED';
      const idx: IndexDef = { name: primary ? `${tname}_pk` : `${tname}_${cname}_key`, columns: [cname], unique: true, clustered };
      if (primary) this.keyColumns.add(cname.toLowerCase());
      indexes.push(idx);
      this.indexOptions(idx, 'column');
    } else if (this.isWord('CHECK') || this.isWord('REFERENCES') || this.isWord('IDENTITY')) {
      this.p++;
      if (this.peek()?.kind === 'word' && this.isWord('(', 1)) this.p++; // REFERENCES other (col)
      if (this.peek()?.text === '(') this.skipParens();
    } else if (this.isWord('DEFAULT')) {
      // A value: a literal (maybe signed), a word, a function call, a parenthesised expression.
      this.p++;
      if (this.peek()?.text === '-' || this.peek()?.text === '+') this.p++;
      if (this.peek()?.text === '(') this.skipParens();
      else if (this.peek() && this.peek()!.text !== ',' && this.peek()!.text !== ')') {
        this.p++;
        if (this.peek()?.text === '(') this.skipParens();
      }
      this.skipCasts();
    } else if (SINGLE_WORD_ATTRIBUTES.has(this.peek()!.upper)) {
      this.p++;
    } else if (this.isWord('CHARSET') || (this.isWord('CHARACTER') && this.isWord('SET', 1))) {
      this.p += this.isWord('CHARSET') ? 1 : 2;
      this.columnCharset(cname);
    } else if (ATTRIBUTES_WITH_OPERAND.has(this.peek()!.upper)) {
      this.p += 2; // COLLATE x, CONSTRAINT n, COMMENT 'x' …
    } else if (this.isWord('ON') && this.isWord('UPDATE', 1)) {
      this.p += 3;
      if (this.peek()?.text === '(') this.skipParens();
    } else if (this.isWord('GENERATED')) {
      // GENERATED ALWAYS AS (expr) [STORED], GENERATED [ALWAYS | BY DEFAULT] AS IDENTITY [(…)]
      this.skipExpr();
    } else {
      const t = this.peek()!;
      this.fail(
        `expected "," or ")" after column ${cname}, found "${t.text}"${t.kind === 'word' && this.peek(1)?.kind === 'word' ? ' (a comma missing before it?)' : ''}`,
        t,
      );
    }
    return undefined;
  }

  // ---- index options -----------------------------------------------------------------------------

  /**
   * The options after an index's columns, up to the end of its statement (`statement`), of its constraint
   * (`constraint`: a `,` or `)`), or, after a column's PRIMARY KEY or UNIQUE (`column`), while they are
   * index options. Each is read into the index (src/table/ddl-options.ts says which), read past, or refused.
   */
  private indexOptions(idx: IndexDef, context: 'statement' | 'constraint' | 'column'): void {
    let pad: Token | undefined;
    while (this.p < this.toks.length) {
      const t = this.peek()!;
      if (
        t.text === ';' ||
        t.upper === 'GO' ||
        t.upper === 'CREATE' ||
        (t.lineStart && isStatementStart(t) && !(t.upper === 'ON' || t.upper === 'WITH'))
      )
        break;
      if (context !== 'statement' && (t.text === ',' || t.text === ')')) break;
      if (t.upper === 'WITH') {
        this.p++;
        const parens = this.peek()?.text === '(';
        if (parens) this.p++;
        pad = this.indexWithOptions(idx, parens) ?? pad;
      } else if (
        t.upper === 'ON' &&
        this.peek(1) &&
        this.peek(1)!.kind !== 'punct' &&
        !this.isWord('UPDATE', 1) &&
        !this.isWord('DELETE', 1)
      ) {
        this.p += 2; // ON [PRIMARY], ON 'segment', ON partition_scheme (col)
        if (this.peek()?.text === '(') this.skipParens();
      } else if (t.upper === 'USING' && this.isWord('INDEX', 1)) {
        if (this.peek(2)?.text === '(')
          this.fail(
            'expected USING INDEX with options, found USING INDEX (CREATE INDEX …): give the index as a CREATE INDEX statement of its own',
            this.peek(2),
          );
        this.p += 2;
      } else if (context === 'column') {
        break;
      } else {
        this.indexClause(idx, t);
      }
    }
    this.checkPadIndex(idx, pad);
  }

  /** The formats' clauses after an index's columns (Oracle's PCTFREE and INITRANS), and the one-word clauses of INDEX_CLAUSES. */
  private indexClause(idx: IndexDef, t: Token): void {
    const word = this.grammar.indexWords[t.upper];
    if (word?.kind === 'setting') {
      this.setIndex(idx, word.key, this.wholeValue(t.text.toLowerCase(), word.min, word.max), t);
      return;
    }
    if (word?.kind === 'fixed') {
      const v = this.wholeValue(t.text.toLowerCase(), word.min, word.max);
      if (v.value !== word.value)
        this.fail(`expected ${t.upper} ${word.value} on index ${idx.name} (${word.why}), found ${t.upper} ${v.value}`, t);
      return;
    }
    if (t.upper === 'COMMENT') {
      this.indexComment(idx, t);
      return;
    }
    const clause = INDEX_CLAUSES[t.upper];
    if (!clause) {
      const words = [...Object.keys(this.grammar.indexWords), ...Object.keys(INDEX_CLAUSES)];
      this.fail(
        `expected an index option rowsim reads or reads past (WITH …, ON …, USING INDEX, ${words.join(', ')}) after index ${idx.name}, found ${this.found(t)}`,
        t,
      );
    }
    if ('refuse' in clause!) this.fail(`expected no ${t.text} on index ${idx.name}: ${clause.refuse}`, t);
    const { operand } = clause as { operand: string };
    this.p++;
    if (operand === 'assignment' && this.peek()?.text === '=') this.p++;
    if (operand === 'word' || operand === 'assignment' || (operand === 'optional-number' && this.peek()?.kind === 'number')) this.p++;
    else if (operand === 'parens' && this.peek()?.text === '(') this.skipParens();
  }

  /** MySQL's `COMMENT 'MERGE_THRESHOLD=N'` on an index: the index's settings in it (INDEX_COMMENT_SETTINGS), the rest read past. */
  private indexComment(idx: IndexDef, t: Token): void {
    this.p++;
    if (this.peek()?.text === '=') this.p++;
    const v = this.peek();
    if (v?.kind !== 'string') this.fail(`expected a quoted comment after COMMENT on index ${idx.name}, found ${this.found(v)}`, v ?? t);
    this.p++;
    const found: Record<string, DdlSetting<number>> = {};
    this.commentSettings(found, unquote(v!), INDEX_COMMENT_SETTINGS, v!);
    for (const [key, setting] of Object.entries(found)) this.setIndex(idx, key, setting, v!);
  }

  /** `WITH (name = value, …)` or ASE's `with name = value, …` of an index; returns the PAD_INDEX = ON token, if any. */
  private indexWithOptions(idx: IndexDef, parens: boolean): Token | undefined {
    let pad: Token | undefined;
    for (;;) {
      const t = this.peek();
      if (!t || t.kind !== 'word') this.fail(`expected an index option after WITH, found ${this.found(t)}`, t);
      const name = t!.text.toLowerCase();
      const rule = INDEX_WITH_OPTIONS[name];
      if (!rule)
        this.fail(
          `expected an index option rowsim reads or reads past (${Object.keys(INDEX_WITH_OPTIONS).join(', ')}), found ${t!.text}`,
          t,
        );
      if (rule!.kind === 'setting') {
        this.setIndex(idx, rule!.key, this.wholeValue(name, rule!.min, rule!.max), t!);
      } else {
        this.p++;
        const value = this.optionValue(parens);
        if (rule!.kind === 'flag') this.setDeduplicate(idx, t!, value);
        else if (rule!.kind === 'pad') pad = /^on$/i.test(value) ? t! : undefined;
        else this.checkOnly(rule!, t!, value);
      }
      if (this.peek()?.text === ',') {
        this.p++;
        continue;
      }
      if (parens) this.expect(')');
      return pad;
    }
  }

  /** An option's value as written (after an optional `=`): to the next `,` or `)` in a list in parentheses, else one word. */
  private optionValue(parens: boolean): string {
    const eq = this.peek()?.text === '=';
    if (eq) this.p++;
    const parts: string[] = [];
    let depth = 0;
    while (this.p < this.toks.length) {
      const x = this.peek()!;
      if (depth === 0 && (x.text === ',' || x.text === ')' || x.text === ';')) break;
      if (!parens && (x.lineStart || (eq && parts.length === 1))) break;
      if (x.text === '(') depth++;
      if (x.text === ')') depth--;
      parts.push(unquote(x));
      this.p++;
    }
    return parts.join(' ').trim();
  }

  private setIndex(idx: IndexDef, key: string, v: DdlSetting<number>, at: Token): void {
    (idx as unknown as Record<string, number>)[key] = v.value;
    this.settingsAt.push({ idx, key, line: at.line, column: at.column });
  }

  private setDeduplicate(idx: IndexDef, t: Token, value: string): void {
    const v = value.toLowerCase();
    if (!['on', 'off', 'true', 'false', '1', '0'].includes(v))
      this.fail(`expected deduplicate_items = on or off, found ${value || 'nothing'}`, t);
    idx.deduplicate_items = v === 'on' || v === 'true' || v === '1';
    this.settingsAt.push({ idx, key: 'deduplicate_items', line: t.line, column: t.column });
  }

  /** An option harmless with some values only: any other value is refused with the reason. */
  private checkOnly(rule: OptionRule, t: Token, value: string): void {
    if (rule.kind !== 'only' || rule.values.includes(value.toLowerCase())) return;
    this.fail(`expected ${t.text} = ${rule.values[0]!.toUpperCase()} (${rule.why}), found ${t.text} = ${value}`, t);
  }

  /** PAD_INDEX = ON with a fill factor of 1 … 99 would leave room on non-leaf pages too: rowsim keeps them full [MS-FF]. */
  private checkPadIndex(idx: IndexDef, pad: Token | undefined): void {
    if (!pad || idx.fillfactor === undefined || idx.fillfactor === 0 || idx.fillfactor === 100) return;
    this.fail(
      `expected PAD_INDEX = OFF on index ${idx.name} with FILLFACTOR = ${idx.fillfactor} (PAD_INDEX = ON leaves the fill factor's free space on non-leaf pages too, which rowsim does not model: they are kept full), found PAD_INDEX = ON`,
      pad,
    );
  }

  // ---- table options -----------------------------------------------------------------------------

  /** LOCK …, WITH …, ON segment, PARTITION BY …, PCTFREE N … up to the end of the statement. */
  private tableOptions(): DdlStorage {
    const storage: DdlStorage = {};
    while (this.p < this.toks.length) {
      const t = this.peek()!;
      if (t.text === ';' || t.upper === 'CREATE' || t.upper === 'GO' || (t.lineStart && isStatementStart(t))) break;
      const word = this.grammar.words[t.upper];
      // MySQL's [DEFAULT] CHARACTER SET [=] x is its CHARSET [=] x.
      const charset = t.upper === 'CHARACTER' && this.isWord('SET', 1) ? this.grammar.assignments['CHARSET'] : undefined;
      if (charset) this.p++;
      const assignment = charset ?? this.grammar.assignments[t.upper];
      if (assignment) {
        this.assignment(storage, charset ? { ...t, text: 'CHARACTER SET' } : t, assignment);
      } else if (t.upper === 'LOCK' && this.peek(1) && this.grammar.locks.has(this.peek(1)!.upper)) {
        const s = this.peek(1)!;
        storage.lock = { value: s.text.toLowerCase() as LockScheme, line: s.line, column: s.column };
        this.p += 2;
      } else if (t.upper === 'LOCK') {
        const schemes = [...this.grammar.locks.keys()].map((k) => k.toLowerCase());
        this.fail(
          `expected ${schemes.slice(0, -1).join(', ')} or ${schemes[schemes.length - 1]} after lock, found ${this.found(this.peek(1))}`,
          this.peek(1) ?? t,
        );
      } else if (t.upper === 'WITH' && this.peek(1)?.text === '(') {
        this.p++;
        this.storageParameters(storage);
      } else if (t.upper === 'WITH') {
        this.p++;
        this.withOptions(storage);
      } else if (t.upper === 'ON' && this.peek(1) && (this.peek(1)!.kind === 'string' || this.peek(1)!.kind === 'word')) {
        storage.segment = unquote(this.peek(1)!);
        this.p += 2;
      } else if (t.upper === 'PARTITION' && this.isWord('BY', 1)) {
        this.p += 2;
        storage.partitions = this.partitions();
      } else if (word?.kind === 'setting' && this.peek(1)?.kind === 'number') {
        (storage as Record<string, unknown>)[word.key] = this.wholeValue(t.text.toLowerCase(), word.min, word.max);
      } else if (word?.kind === 'refuse') {
        this.fail(`expected ${word.expected}, found ${t.upper}`, t);
      } else if (t.text === '(') {
        this.skipParens();
      } else {
        this.p++;
      }
    }
    return storage;
  }

  /** A table option `NAME[=]value` (MySQL's ENGINE=InnoDB, ROW_FORMAT=DYNAMIC, COMMENT='MERGE_THRESHOLD=45'), by its rule. */
  private assignment(storage: DdlStorage, t: Token, rule: OptionRule): void {
    this.p++;
    if (this.peek()?.text === '=') this.p++;
    const v = this.peek();
    if (!v || v.text === ';' || v.text === ',') this.fail(`expected a value after ${t.text}, found ${this.found(v)}`, v ?? t);
    this.p++;
    const value = unquote(v!).trim();
    const at = { line: v!.line, column: v!.column };
    const options = storage as Record<string, unknown>;
    if (rule.kind === 'word') {
      if (!rule.values.includes(value.toLowerCase()))
        this.fail(`expected ${t.text}=${rule.values.join(', ')} (${rule.why}), found ${t.text}=${value}`, v);
      options[rule.key] = { value: value.toLowerCase(), ...at };
    } else if (rule.kind === 'setting') {
      if (!/^\d+$/.test(value) || Number(value) < rule.min || Number(value) > rule.max)
        this.fail(`expected ${t.text} = a whole number from ${rule.min} to ${rule.max}, found ${this.found(v)}`, v);
      options[rule.key] = { value: Number(value), ...at };
    } else if (rule.kind === 'comment') {
      this.commentSettings(options, value, rule.settings, v!);
    } else this.checkOnly(rule, t, value);
  }

  /** A whole-number option value after the option word (and an optional `=`). */
  private wholeValue(option: string, min: number, max: number): DdlSetting<number> {
    this.p++;
    if (this.peek()?.text === '=') this.p++;
    const v = this.peek();
    // pg_dump quotes storage parameters: WITH (fillfactor='70').
    const text = v?.kind === 'string' ? unquote(v).trim() : v?.kind === 'number' ? v.text : '';
    if (!v || !/^\d+$/.test(text) || Number(text) < min || Number(text) > max) {
      // A sign is a token of its own: show it with the number after it (-5, not "-").
      const next = this.toks[this.p + 1];
      const signed = (v?.text === '-' || v?.text === '+') && next?.kind === 'number' ? `"${v.text}${next.text}"` : this.found(v);
      this.fail(`expected ${option} = a whole number from ${min} to ${max}, found ${signed}`, v);
    }
    this.p++;
    return { value: Number(text), line: v!.line, column: v!.column };
  }

  /** `with name = N, …` without parentheses (ASE's exp_row_size, reservepagegap, identity_gap, dml_logging …): the formats' `with` clauses. */
  private withOptions(storage: DdlStorage): void {
    for (;;) {
      const t = this.peek();
      if (!t || t.kind !== 'word') return;
      const name = t.text.toLowerCase();
      const rule = this.grammar.with[name];
      if (!rule)
        this.fail(`expected a table option rowsim reads or reads past (${Object.keys(this.grammar.with).join(', ')}), found ${t.text}`, t);
      this.tableOption(storage, name, rule!, t, false);
      if (this.peek()?.text !== ',') return;
      this.p++;
    }
  }

  /** One table option by its rule: a setting kept in `storage`, else read past (checked where only some values are harmless). */
  private tableOption(storage: DdlStorage, name: string, rule: OptionRule, t: Token, parens: boolean): void {
    if (rule.kind === 'setting') {
      (storage as Record<string, unknown>)[rule.key] = this.wholeValue(name, rule.min, rule.max);
    } else {
      this.p++;
      this.checkOnly(rule, t, this.optionValue(parens));
    }
  }

  /** PostgreSQL storage parameters `WITH (fillfactor = N, autovacuum_… = …)`, SQL Server's `WITH (DATA_COMPRESSION = NONE)`. */
  private storageParameters(storage: DdlStorage): void {
    const open = this.p;
    this.p++;
    while (this.p < this.toks.length && this.peek()!.text !== ')') {
      const t = this.peek()!;
      let name = t.text.toLowerCase();
      // toast.autovacuum_enabled: a dotted name.
      if (this.peek(1)?.text === '.' && this.peek(2)?.kind === 'word') {
        name = `${name}.${this.peek(2)!.text.toLowerCase()}`;
        this.p += 2;
      }
      const { withParens, harmlessParameters } = this.grammar;
      const rule = withParens[name] ?? (harmlessParameters.some((h) => h.test(name)) ? ({ kind: 'harmless' } as const) : undefined);
      if (t.kind !== 'word' || !rule) {
        const names = [...Object.keys(withParens), ...harmlessParameters.map((h) => h.label)];
        this.fail(`expected a table storage parameter rowsim reads or reads past (${names.join(', ')}), found ${this.found(t)}`, t);
      }
      this.tableOption(storage, name, rule!, t, true);
      if (this.peek()?.text === ',') this.p++;
    }
    if (this.p >= this.toks.length) this.fail('expected ")" to close WITH (…), found end of DDL', this.toks[open]);
    this.p++;
  }

  /** `partition by roundrobin N | hash (cols) N | hash (cols) (p1, p2) | range/list (cols) (p1 …, p2 …)` [on (…)]. */
  private partitions(): { kind: string; count?: number } {
    const kindTok = this.peek();
    if (!kindTok || kindTok.kind !== 'word')
      this.fail(`expected roundrobin, hash, range or list after partition by, found ${this.found(kindTok)}`, kindTok);
    const kind = kindTok!.text.toLowerCase();
    this.p++;
    if (this.peek()?.text === '(' && kind !== 'roundrobin') this.skipParens(); // the partition key columns
    let count: number | undefined;
    if (this.peek()?.kind === 'number') {
      count = Number(this.peek()!.text);
      this.p++;
    } else if (this.peek()?.text === '(') {
      count = 1;
      let depth = 0;
      do {
        const x = this.peek()!.text;
        if (x === '(') depth++;
        else if (x === ')') depth--;
        else if (x === ',' && depth === 1) count++;
        this.p++;
      } while (depth > 0 && this.p < this.toks.length);
    }
    if (this.isWord('ON') && this.peek(1)?.text === '(') {
      this.p++;
      this.skipParens();
    }
    return count === undefined ? { kind } : { kind, count };
  }

  // ---- the whole DDL -----------------------------------------------------------------------------

  private finish(): DdlTable {
    const table = this.table;
    if (!table) throw new DdlError('expected a CREATE TABLE statement, found none', 1, 1);
    for (const { idx, tok, on } of this.pendingIndexes) {
      if (on.toLowerCase() !== table.name.toLowerCase()) {
        throw new DdlError(`index ${idx.name} is on ${on}, not on table ${table.name}`, tok.line, tok.column);
      }
      table.indexes.push(idx);
    }
    const seen = new Set<string>();
    let clustered: IndexDef | undefined;
    for (const idx of table.indexes) {
      const tokens = this.columnTokens.get(idx) ?? [];
      idx.columns.forEach((c, k) => {
        if (!table.columns.some((col) => col.name.toLowerCase() === c.toLowerCase())) {
          const at = tokens[k] ?? { line: 1, column: 1 };
          throw new DdlError(`index ${idx.name} names column ${c}, which the table does not have`, at.line, at.column);
        }
      });
      const key = idx.name.toLowerCase();
      if (seen.has(key)) {
        const at = this.pendingIndexes.find((p) => p.idx === idx)?.tok ?? tokens[0] ?? { line: 1, column: 1 };
        throw new DdlError(`expected index names not used before, found "${idx.name}" again`, at.line, at.column);
      }
      seen.add(key);
      if (idx.clustered && clustered) {
        const at = this.pendingIndexes.find((p) => p.idx === idx)?.tok ?? tokens[0] ?? { line: 1, column: 1 };
        throw new DdlError(`expected at most one clustered index, found ${idx.name} after ${clustered.name}`, at.line, at.column);
      }
      if (idx.clustered) clustered = idx;
    }
    if (this.settingsAt.length)
      table.storage.indexOptions = this.settingsAt.map(({ idx, key, line, column }) => ({ index: idx.name, key, line, column }));
    return table;
  }
}
