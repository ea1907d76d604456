/**
 * The trace as an HTML slide deck for the projector: one step a slide, its words and the pages it changed
 * drawn before and after; the arrow keys (and Page Up / Down, Space, Home, End) move. One self-contained
 * file: styles, script and drawings inline, nothing fetched.
 */
import type { Trace } from './trace.js';
import { renderPageSvg } from './svg.js';

const esc = (t: string) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function traceDeck(title: string, subtitle: string, trace: Trace): string {
  const slides = trace.steps.map((s) => {
    const pages = s.pages
      .map(
        (p) =>
          `<div class="pair"><figure><figcaption>page ${p.page} before</figcaption>${p.before ? renderPageSvg(p.before, `s${s.step}-p${p.page}-before`) : '<p class="none">(the page did not exist yet)</p>'}</figure><figure><figcaption>page ${p.page} after</figcaption>${renderPageSvg(p.after, `s${s.step}-p${p.page}-after`)}</figure></div>`,
      )
      .join('');
    const lines = s.text
      .split('\n')
      .map((l) => `<li>${esc(l)}</li>`)
      .join('');
    return `<section class="slide" data-step="${s.step}"><h2>Step ${s.step} <span>phase ${s.phase}: ${esc(s.phaseLabel)}</span></h2><ul class="what">${lines}</ul>${pages}</section>`;
  });
  const end = trace.truncated
    ? `<p>The trace stopped after ${trace.steps.length} steps: <code>--steps</code> shows more.</p>`
    : '<p>End of the workload.</p>';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<style>
body{margin:0;font-family:"DejaVu Sans",Verdana,sans-serif;background:#f6f6f3;color:#111}
header{padding:10px 24px;background:#23313f;color:#fff;display:flex;justify-content:space-between;align-items:baseline}
header h1{font-size:22px;margin:0}header .hint{font-size:15px;opacity:.85}
.slide{display:none;padding:16px 24px}.slide.on{display:block}
.slide h2{font-size:28px;margin:6px 0}.slide h2 span{font-size:18px;color:#555;font-weight:normal;margin-left:12px}
.what{font-size:22px;line-height:1.35;margin:8px 0 14px 0}
.pair{display:flex;gap:16px;flex-wrap:wrap;margin-bottom:12px}
figure{margin:0;flex:1 1 880px;background:#fff;border:1px solid #ccc;padding:6px}
figcaption{font-size:16px;font-weight:bold;margin-bottom:4px}
figure svg{width:100%;height:auto}
.none{font-size:18px;color:#777;padding:40px}
#count{font-size:16px}
@media print{.slide{display:block;page-break-after:always}header .hint{display:none}}
</style></head><body>
<header><h1>${esc(title)}</h1><span class="hint">${esc(subtitle)} · ← → to move · <span id="count"></span></span></header>
<main>
<section class="slide" data-step="0"><h2>${esc(title)}</h2><p class="what">${esc(subtitle)}</p><p class="what">${trace.steps.length} steps. Press → to start.</p></section>
${slides.join('\n')}
<section class="slide" data-step="end"><h2>The end</h2>${end}</section>
</main>
<script>
(function () {
  var slides = Array.prototype.slice.call(document.querySelectorAll('.slide'));
  var at = 0;
  function show(i) {
    at = Math.max(0, Math.min(slides.length - 1, i));
    slides.forEach(function (s, k) { s.classList.toggle('on', k === at); });
    document.getElementById('count').textContent = (at + 1) + ' / ' + slides.length;
    if (history.replaceState) history.replaceState(null, '', '#' + at);
  }
  document.addEventListener('keydown', function (e) {
    if (e.key === 'ArrowRight' || e.key === 'PageDown' || e.key === ' ') { show(at + 1); e.preventDefault(); }
    else if (e.key === 'ArrowLeft' || e.key === 'PageUp') { show(at - 1); e.preventDefault(); }
    else if (e.key === 'Home') show(0);
    else if (e.key === 'End') show(slides.length - 1);
  });
  var start = parseInt((location.hash || '#0').slice(1), 10);
  show(isNaN(start) ? 0 : start);
})();
</script>
</body></html>
`;
}
