/**
 * The playground's page: one self-contained HTML file (styles, the bundled engine, the page's script and
 * the teaching configs inline), which opens from disk with no server and fetches nothing.
 */
import { UserError } from '../config/errors.js';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A config the page offers in its list: its file name and its YAML. */
export interface EmbeddedConfig {
  name: string;
  text: string;
}

/** dist/bundle/ from this module, compiled (dist/playground/) or bundled (dist/bundle/): both one level under dist/. */
const BUNDLE = new URL('../bundle/', import.meta.url);
/** sim-configs/teaching/ of the package, from the same place. */
const TEACHING = new URL('../../sim-configs/teaching/', import.meta.url);

export function teachingConfigs(): EmbeddedConfig[] {
  const dir = fileURLToPath(TEACHING);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => ({ name: `teaching/${f}`, text: readFileSync(`${dir}${f}`, 'utf8') }));
}

/** The two browser scripts scripts/bundle.mjs builds (npm run build). */
export function playgroundScripts(): { engine: string; page: string } {
  const read = (name: string) => {
    try {
      return readFileSync(new URL(name, BUNDLE), 'utf8');
    } catch {
      throw new UserError(
        `rowsim is not completely installed: dist/bundle/${name} is missing (npm run build makes it; an npm install of rowsim ships it)`,
      );
    }
  };
  return { engine: read('playground-engine.js'), page: read('playground-page.js') };
}

/** Script text safe inside <script>: no "</script" or "<!--" can end or bend it. */
function inlineScript(js: string): string {
  return js.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

const STYLE = `
body{margin:0;font:14px "DejaVu Sans",Verdana,sans-serif;background:#f6f6f3;color:#111}
header{background:#23313f;color:#fff;padding:6px 12px;display:flex;gap:12px;align-items:center;flex-wrap:wrap}
header h1{font-size:17px;margin:0 12px 0 0}
main{display:grid;grid-template-columns:330px 1fr;gap:10px;padding:10px}
aside section,.pane{background:#fff;border:1px solid #bbb;padding:8px;margin-bottom:10px}
.pane{min-width:0;overflow-x:auto}
aside h2,.pane h2{font-size:14px;margin:0 0 6px}
label{display:inline-block;margin:2px 6px 2px 0}
input[type=number]{width:5.5em}
textarea{width:100%;height:260px;font:12px monospace;box-sizing:border-box}
table{border-collapse:collapse;font-size:12px;margin:4px 0}
td,th{border:1px solid #ccc;padding:2px 5px;text-align:right}
td:first-child,th:first-child{text-align:left}
tr.on td{background:#fff2a8}
.panes{display:grid;grid-template-columns:repeat(auto-fit,minmax(420px,1fr));gap:10px;align-content:start}
.steps{display:flex;gap:6px;align-items:center;margin:4px 0}
.what{margin:4px 0;padding-left:1.2em;min-height:3em}
.figs{display:flex;gap:6px;flex-wrap:wrap}
.figs figure{margin:0;flex:1 1 300px;min-width:0}
.figs svg{width:100%;height:auto}
.problems{color:#a00;white-space:pre-wrap;font-family:monospace}
.cols td,.cols th{text-align:left}
.cols input{width:5.5em}.cols td:nth-child(2) input{width:8em}.cols input[type=checkbox]{width:auto}
`;

/** The page: the shell the script fills in, the configs as JSON, the engine, then the page's script. */
export function playgroundHtml(configs: readonly EmbeddedConfig[], scripts: { engine: string; page: string }): string {
  const json = JSON.stringify(configs).replace(/</g, '\\u003c');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>rowsim playground</title><style>${STYLE}</style></head><body>
<header><h1>rowsim playground</h1><span id="status">loading…</span></header>
<main><aside id="controls"></aside><div class="panes" id="panes"></div></main>
<noscript>The playground runs rowsim in the page: it needs JavaScript.</noscript>
<script type="application/json" id="rowsim-configs">${json}</script>
<script>${inlineScript(scripts.engine)}</script>
<script>${inlineScript(scripts.page)}</script>
</body></html>
`;
}
