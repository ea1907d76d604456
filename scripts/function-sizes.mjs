#!/usr/bin/env node
/**
 * Functions longer than a limit (default 70 lines, TigerBeetle's rule: a reader sees a function whole),
 * in the TypeScript sources under the given folders (default src/). A function's lines run from its
 * first line to its closing brace; a nested function counts for itself and inside its parent.
 *
 *   node scripts/function-sizes.mjs [--max 70] [--json] [dir …]
 *
 * Prints one line per offender, longest first (file:line name lines), and exits 1 when there is any.
 * test/function-size.test.ts runs the same check in the suite.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from '@babel/parser';

export const MAX_FUNCTION_LINES = 70;

function tsFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...tsFiles(p));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const FUNCTION_TYPES = new Set([
  'FunctionDeclaration',
  'FunctionExpression',
  'ArrowFunctionExpression',
  'ClassMethod',
  'ClassPrivateMethod',
  'ObjectMethod',
  'TSDeclareMethod',
]);

/** A readable name for a function node, from itself or the node that holds it. */
function nameOf(node, parent, className) {
  const key = node.key ?? parent?.key;
  const own = node.id?.name ?? (key && (key.name ?? key.value)) ?? (parent?.type === 'VariableDeclarator' ? parent.id?.name : undefined);
  if (own && className && (node.type === 'ClassMethod' || node.type === 'ClassPrivateMethod')) return `${className}.${own}`;
  return own ?? '(anonymous)';
}

/** Every function of one file with its first line and length. */
export function functionsOf(file, text = readFileSync(file, 'utf8')) {
  const ast = parse(text, { sourceType: 'module', plugins: ['typescript', 'decorators'], errorRecovery: false });
  const found = [];
  const walk = (node, parent, className) => {
    if (!node || typeof node.type !== 'string') return;
    let cls = className;
    if (node.type === 'ClassDeclaration' || node.type === 'ClassExpression') cls = node.id?.name ?? className;
    if (FUNCTION_TYPES.has(node.type) && node.body) {
      const lines = node.loc.end.line - node.loc.start.line + 1;
      found.push({ file, line: node.loc.start.line, name: nameOf(node, parent, cls), lines });
    }
    for (const key of Object.keys(node)) {
      if (key === 'loc' || key === 'start' || key === 'end' || key === 'leadingComments' || key === 'trailingComments') continue;
      const v = node[key];
      if (Array.isArray(v)) for (const c of v) walk(c, node, cls);
      else if (v && typeof v === 'object' && typeof v.type === 'string') walk(v, node, cls);
    }
  };
  walk(ast.program, undefined, undefined);
  return found;
}

/** Functions over `max` lines in the TypeScript files under `dirs`, longest first. */
export function longFunctions(dirs, max = MAX_FUNCTION_LINES, root = process.cwd()) {
  const out = [];
  for (const dir of dirs)
    for (const file of tsFiles(join(root, dir)))
      for (const f of functionsOf(file)) if (f.lines > max) out.push({ ...f, file: relative(root, f.file) });
  return out.sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  let max = MAX_FUNCTION_LINES;
  let json = false;
  const dirs = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--max') max = Number(args[++i]);
    else if (args[i] === '--json') json = true;
    else dirs.push(args[i]);
  }
  const long = longFunctions(dirs.length ? dirs : ['src'], max);
  if (json) console.log(JSON.stringify(long, null, 2));
  else for (const f of long) console.log(`${f.file}:${f.line} ${f.name} ${f.lines} lines`);
  process.exit(long.length ? 1 : 0);
}
