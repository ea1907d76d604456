/**
 * The DDL reader's moves over the token list (src/table/ddl.ts reads the statements): look ahead, match a
 * word, fail at a token with its line and column, read names and lists, skip parentheses, expressions,
 * statements and batches.
 */
import { DdlError, isStatementStart, type Token } from './ddl-script.js';
import { MAX_IDENTIFIER_BYTES, shortText, utf8Bytes } from '../config/limits.js';
import { MULTI_WORD_TYPES } from '../config/column-types.js';
import type { OptionRule } from '../config/ddl-clauses.js';

/** Does `words` (lower or upper case, one space apart) begin a type of several words? */
export function beginsMultiWordType(words: string): boolean {
  const w = words.toLowerCase();
  return MULTI_WORD_TYPES.some((t) => t === w || t.startsWith(`${w} `));
}

export class DdlTokens {
  protected p = 0;

  constructor(protected readonly toks: Token[]) {}

  // ---- tokens ------------------------------------------------------------------------------------

  protected peek(k = 0): Token | undefined {
    return this.toks[this.p + k];
  }
  protected isWord(w: string, k = 0): boolean {
    return this.peek(k)?.upper === w;
  }
  protected fail(msg: string, t: Token | undefined = this.peek()): never {
    const last = this.toks[this.toks.length - 1];
    const pos = t ?? (last ? { line: last.line, column: last.column + last.text.length } : { line: 1, column: 1 });
    throw new DdlError(msg, pos.line, pos.column);
  }
  protected found(t: Token | undefined = this.peek()): string {
    return t ? `"${t.text}"` : 'end of DDL';
  }
  protected expect(w: string): Token {
    const t = this.peek();
    if (!t || t.upper !== w) this.fail(`expected ${w}, found ${this.found(t)}`);
    this.p++;
    return t!;
  }
  /** A name, possibly qualified (db.owner.name): the last part, and the parts before it. */
  protected qualifiedName(): { name: string; qualifiers: string[] } {
    const t = this.peek();
    if (!t || t.kind !== 'word') this.fail(`expected a name, found ${this.found(t)}`);
    if (t!.text.length > MAX_IDENTIFIER_BYTES / 4 && utf8Bytes(t!.text) > MAX_IDENTIFIER_BYTES)
      this.fail(
        `expected a name of at most ${MAX_IDENTIFIER_BYTES} bytes (the longest identifier of any format), found ${utf8Bytes(t!.text)} (${shortText(t!.text)})`,
        t,
      );
    this.p++;
    const parts = [t!.text];
    while (this.peek()?.text === '.' && (this.peek(1)?.kind === 'word' || this.peek(1)?.text === '.')) {
      // db..name: the owner left out.
      if (this.peek(1)?.text === '.') {
        parts.push('');
        this.p++;
        continue;
      }
      parts.push(this.peek(1)!.text);
      this.p += 2;
    }
    return { name: parts[parts.length - 1]!, qualifiers: parts.slice(0, -1) };
  }
  protected name(): string {
    return this.qualifiedName().name;
  }
  protected nameList(tokens?: Token[]): string[] {
    this.expect('(');
    const names: string[] = [];
    for (;;) {
      tokens?.push(this.peek()!);
      names.push(this.name());
      while (this.isWord('ASC') || this.isWord('DESC')) this.p++;
      if (this.peek()?.text === ',') {
        this.p++;
        continue;
      }
      this.expect(')');
      return names;
    }
  }
  /** Skip a parenthesised group starting at the current `(`. */
  protected skipParens(): void {
    let depth = 0;
    do {
      if (this.peek()!.text === '(') depth++;
      if (this.peek()!.text === ')') depth--;
      this.p++;
    } while (depth > 0 && this.p < this.toks.length);
  }
  /** Skip a balanced expression until a `,` or `)` at depth 0. */
  protected skipExpr(): void {
    let depth = 0;
    while (this.p < this.toks.length) {
      const t = this.toks[this.p]!;
      if (depth === 0 && (t.text === ',' || t.text === ')')) return;
      if (t.text === '(') depth++;
      if (t.text === ')') depth--;
      this.p++;
    }
  }
  /** Skip to the end of a statement: `;`, a `go`, or the next line that starts a statement. */
  protected skipStatement(): void {
    this.p++;
    this.skipRestOfStatement();
  }
  protected skipRestOfStatement(): void {
    while (this.p < this.toks.length) {
      const t = this.toks[this.p]!;
      if (t.text === ';' || (t.lineStart && isStatementStart(t))) return;
      if (t.text === '(') this.skipParens();
      else this.p++;
    }
  }
  /** Skip to the end of the batch: the next `go` that starts a line (trigger and procedure bodies). */
  protected skipBatch(): void {
    this.p++;
    while (this.p < this.toks.length && !(this.toks[this.p]!.upper === 'GO' && this.toks[this.p]!.lineStart)) this.p++;
  }

  /** PostgreSQL casts after a value, as pg_dump writes defaults: `'x'::character varying`, `'{}'::integer[]`. */
  protected skipCasts(): void {
    while (this.peek()?.text === ':' && this.peek(1)?.text === ':' && this.peek(2)?.kind === 'word') {
      this.p += 2;
      const words = [this.toks[this.p++]!.text];
      while (this.peek()?.kind === 'word' && beginsMultiWordType([...words, this.peek()!.text].join(' ')))
        words.push(this.toks[this.p++]!.text);
      if (this.peek()?.text === '(') this.skipParens();
      while (this.peek()?.kind === 'punct' && this.peek()!.text.startsWith('[')) this.p++;
    }
  }

  /** The `NAME=N` parts of a quoted comment that are settings (the rest of the comment is prose). */
  protected commentSettings(
    options: Record<string, unknown>,
    text: string,
    settings: Readonly<Record<string, OptionRule>>,
    v: Token,
  ): void {
    for (const m of text.matchAll(/([A-Za-z_]+)\s*=\s*(\S+)/g)) {
      const rule = settings[m[1]!.toUpperCase()];
      if (rule?.kind !== 'setting') continue;
      const n = Number(m[2]);
      if (!Number.isInteger(n) || n < rule.min || n > rule.max)
        this.fail(`expected ${m[1]}=a whole number from ${rule.min} to ${rule.max} in the comment, found ${m[1]}=${m[2]}`, v);
      options[rule.key] = { value: n, line: v.line, column: v.column };
    }
  }
}
