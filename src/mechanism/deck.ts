/**
 * The trace as an HTML slide deck for the projector: one step a slide, each one 16:9 screen (1280×720 or
 * 1920×1080; sizes are in viewport units, so the one fits as the other does): the step's sentences on top,
 * the pages it changed below, before and after side by side, the rows it changed outlined in both.
 * → / Space / Page Down / Enter / a click go forward (what a presenter's clicker sends), ← / Page Up /
 * Backspace back, Home / End to the ends; the address's #N is step N (editing it moves there), and every
 * slide opens at its top. One self-contained file: styles, script and drawings inline, nothing fetched.
 */
import type { Trace, TraceStep } from './trace.js';
import { renderPageSvg, svgEntryChars } from './svg.js';

const esc = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export interface DeckOptions {
  /** Lettering scale for the back row (1: the default sizes). */
  scale?: number;
}

/**
 * The size of one drawing's panel at 1280×720, in CSS pixels, from the slide's rules below (every size is
 * in vh, so 1920×1080 is the same slide 1.5 times larger): the bar, the step's sentences (their lines
 * estimated a little long, 0.57 em a character, so that a drawing is never taller than its panel), the
 * caption, then the figures in one row of up to three, or two rows of two (before and after of two
 * pages) or three.
 */
export function panelBox(text: string, figures: number, scale: number): { width: number; height: number } {
  const vh = 7.2;
  const font = 2.3 * vh * 1.05 * scale;
  const lineWidth = 1280 - 2 * 1.6 * vh - 1.2 * font;
  const lines = text.split('\n').reduce((n, l) => n + Math.max(1, Math.ceil((l.length * 0.57 * font) / lineWidth)), 0);
  const sentences = lines * font * 1.3 + text.split('\n').length * 0.2 * font;
  const bar = 0.6 * vh * 2 + 2.3 * vh * 0.85 * 1.2 * 1.2 * scale;
  const caption = 2.3 * vh * 0.85 * 1.2 * scale;
  const cols = figures === 4 ? 2 : Math.min(3, Math.max(1, figures));
  const rowsOf = figures > 3 ? 2 : 1;
  const frame = 2 * (0.4 * vh + 1);
  // The bar's negative margin takes the slide's top padding.
  const pages = 720 - 1.2 * vh - bar - 0.8 * vh - sentences - 0.8 * vh;
  const width = (1280 - 2 * 1.6 * vh - (cols - 1) * vh) / cols - frame;
  const height = (pages - (rowsOf - 1) * vh) / rowsOf - frame - caption;
  // Never a negative box (an SVG with no height draws nothing); --scale is capped so that none is this small.
  return { width: Math.floor(width), height: Math.max(60, Math.floor(height)) };
}

/** One step's figures: for each page it changed, before (when the page existed) and after, each filling its panel. */
function stepFigures(s: TraceStep, scale: number): string {
  const figs: string[] = [];
  const count = s.pages.reduce((n, p) => n + (p.before ? 2 : 1), 0);
  // The drawings of a slide share one layout (the list beside the grid or under it), so that they compare.
  const entryChars = Math.max(...s.pages.flatMap((p) => [p.after, ...(p.before ? [p.before] : [])]).map(svgEntryChars));
  const box = { ...panelBox(s.text, count, scale), entryChars };
  for (const p of s.pages) {
    const opts = (when: string) => ({ idPrefix: `s${s.step}-p${p.page}-${when}`, highlight: s.rows, scale, legend: false, box });
    if (p.before)
      figs.push(`<figure><figcaption>page ${p.page} <b>before</b></figcaption>${renderPageSvg(p.before, opts('before'))}</figure>`);
    figs.push(
      `<figure><figcaption>page ${p.page} <b>after</b>${p.before ? '' : ' (a new page)'}</figcaption>${renderPageSvg(p.after, opts('after'))}</figure>`,
    );
  }
  return `<div class="pages n${figs.length}">${figs.join('')}</div>`;
}

const STYLE = `
:root{--s:1}
html,body{margin:0;padding:0;background:#f6f6f3;color:#111;font-family:"DejaVu Sans",Verdana,sans-serif}
body{font-size:calc(var(--s) * 2.3vh)}
.slide{display:none;box-sizing:border-box;height:100vh;width:100vw;padding:1.2vh 1.6vh;flex-direction:column;overflow:hidden}
.slide.on{display:flex}
.bar{display:flex;justify-content:space-between;align-items:baseline;background:#23313f;color:#fff;margin:-1.2vh -1.6vh 0.8vh;padding:0.6vh 1.6vh;font-size:0.85em}
.bar b{font-size:1.2em}
.what{margin:0 0 0.8vh 0;padding-left:1.2em;line-height:1.3;font-size:1.05em;flex:0 0 auto}
.what li{margin:0.1em 0}
.pages{flex:1 1 0;min-height:0;display:grid;grid-auto-flow:column;grid-auto-columns:1fr;gap:1vh}
.pages.n4,.pages.n5,.pages.n6{grid-auto-flow:row;grid-template-columns:repeat(3,1fr)}.pages.n4{grid-template-columns:repeat(2,1fr)}
figure{margin:0;min-height:0;min-width:0;display:flex;flex-direction:column;background:#fff;border:1px solid #bbb;padding:0.4vh}
figcaption{font-size:0.85em;line-height:1.2;flex:0 0 auto;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
figure svg{flex:1 1 0;min-height:0;width:100%;height:100%}
.title h1{font-size:2em;margin:2vh 0 1vh}.title p{font-size:1.1em;max-width:80vw}
.keys{color:#444}
.legend span{display:inline-block;margin:0 1.2em 0.5em 0}.legend i{display:inline-block;width:1em;height:1em;border:1px solid #333;vertical-align:-0.15em;margin-right:0.3em}
@media print{.slide{display:flex;page-break-after:always;height:auto}}
`;

const LEGEND: [string, string][] = [
  ['#8d99a6', 'header'],
  ['#5b6b7c', 'slot array'],
  ['#3f7fe0', 'row'],
  ['#8fb8f5', 'heap-only tuple'],
  ['#f0902a', 'stub'],
  ['#d9473f', 'forwarded row'],
  ['#b48ad0', 'old version, open'],
  ['#7d7d7d', 'dead version'],
  ['#f2d16b', 'hole'],
  ['#ffffff', 'contiguous free space'],
];

const SCRIPT = `(function () {
  var slides = Array.prototype.slice.call(document.querySelectorAll('.slide'));
  var at = -1;
  function fromHash() {
    var h = (location.hash || '#0').slice(1);
    if (h === 'end') return slides.length - 1;
    var n = parseInt(h, 10);
    return isNaN(n) ? 0 : n;
  }
  function show(i) {
    i = Math.max(0, Math.min(slides.length - 1, i));
    if (i !== at) {
      at = i;
      slides.forEach(function (s, k) { s.classList.toggle('on', k === at); });
      var c = slides[at].querySelector('.count');
      if (c) c.textContent = (at + 1) + ' / ' + slides.length;
    }
    window.scrollTo(0, 0);
    var want = '#' + (at === slides.length - 1 ? 'end' : at);
    if (location.hash !== want && history.replaceState) history.replaceState(null, '', want);
  }
  var fwd = { ArrowRight: 1, ArrowDown: 1, PageDown: 1, ' ': 1, Spacebar: 1, Enter: 1, N: 1, n: 1 };
  var back = { ArrowLeft: 1, ArrowUp: 1, PageUp: 1, Backspace: 1, P: 1, p: 1 };
  document.addEventListener('keydown', function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    if (fwd[e.key]) show(at + 1);
    else if (back[e.key]) show(at - 1);
    else if (e.key === 'Home') show(0);
    else if (e.key === 'End') show(slides.length - 1);
    else return;
    e.preventDefault();
  });
  document.addEventListener('click', function (e) {
    if (e.button !== 0 || (e.target && e.target.closest && e.target.closest('a'))) return;
    show(e.shiftKey ? at - 1 : at + 1);
  });
  window.addEventListener('hashchange', function () { show(fromHash()); });
  show(fromHash());
})();`;

export function traceDeck(title: string, subtitle: string, trace: Trace, options: DeckOptions = {}): string {
  const scale = options.scale ?? 1;
  const total = trace.steps.length + 2;
  const bar = (left: string) => `<div class="bar"><span>${left}</span><span>${esc(title)} · <span class="count"></span></span></div>`;
  const slides = trace.steps.map((s) => {
    const lines = s.text
      .split('\n')
      .map((l) => `<li>${esc(l)}</li>`)
      .join('');
    return `<section class="slide" data-step="${s.step}" data-rows="${s.rows.join(',')}">${bar(`<b>Step ${s.step}</b> · phase ${s.phase}: ${esc(s.phaseLabel)}`)}<ul class="what">${lines}</ul>${stepFigures(s, scale)}</section>`;
  });
  const end = trace.truncated
    ? `<p>The trace stopped after ${trace.steps.length} steps: <code>--steps</code> shows more.</p>`
    : '<p>End of the workload.</p>';
  const legend = LEGEND.map(([c, n]) => `<span><i style="background:${c}"></i>${n}</span>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(title)}</title>
<style>${STYLE.replace(':root{--s:1}', `:root{--s:${scale}}`)}</style></head><body>
<section class="slide title" data-step="0">${bar('')}<h1>${esc(title)}</h1><p>${esc(subtitle)}</p><p>${trace.steps.length} steps, ${total} slides. Each slide: the step in words, then the pages it changed, <b>before</b> and <b>after</b>, its rows outlined in yellow.</p>
<p class="legend">${legend}<span><i style="background:#dce8fb"></i>reserved</span><span style="color:#d00000">━ fillfactor / PCTFREE / reservation line</span><span style="color:#7a2db0">→ t_ctid, HOT chain, redirect</span></p>
${trace.note ? `<p>Note: ${esc(trace.note)}.</p>` : ''}
<p class="keys">→, Space, Page Down or a click: next · ← or Page Up: back · Home / End · <code>#14</code> in the address: step 14.</p></section>
${slides.join('\n')}
<section class="slide" data-step="end">${bar('<b>The end</b>')}${end}</section>
<script>${SCRIPT}</script>
</body></html>
`;
}
