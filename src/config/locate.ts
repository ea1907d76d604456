/** Positions in a parsed YAML document, for problems that name a key path. */
import { LineCounter, isNode, type Document } from 'yaml';
import { keyPathString, type InputProblem, type KeyPath } from './errors.js';

/** Positions of YAML nodes for a parsed document. */
export class YamlLocator {
  constructor(
    private readonly doc: Document,
    private readonly lines: LineCounter,
    readonly file: string,
  ) {}

  /** Line and column of the node at `path`, or of the deepest existing ancestor. */
  locate(path: KeyPath, preferKey = false): { line: number; column: number } | undefined {
    for (let n = path.length; n >= 0; n--) {
      const sub = path.slice(0, n);
      if (preferKey && n === path.length && n > 0) {
        const parent = sub.length > 1 ? this.doc.getIn(sub.slice(0, -1), true) : this.doc.contents;
        const key = sub[sub.length - 1];
        if (parent && isNode(parent) && 'items' in parent) {
          for (const item of (parent as { items: unknown[] }).items) {
            const pair = item as { key?: { value?: unknown; range?: [number, number, number] } };
            if (pair.key && pair.key.value === key && pair.key.range) return this.pos(pair.key.range[0]);
          }
        }
      }
      const node = sub.length === 0 ? this.doc.contents : this.doc.getIn(sub, true);
      if (node && isNode(node) && node.range) return this.pos(node.range[0]);
    }
    return undefined;
  }

  problem(path: KeyPath, message: string, preferKey = false): InputProblem {
    const pos = this.locate(path, preferKey);
    return { file: this.file, line: pos?.line, column: pos?.column, key: keyPathString(path) || undefined, message };
  }

  private pos(offset: number): { line: number; column: number } {
    const p = this.lines.linePos(offset);
    return { line: p.line, column: p.col };
  }
}
