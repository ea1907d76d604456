/**
 * rowsim playground: writes DIR/index.html, a page that runs rowsim's page engines in the browser
 * (docs/playground.md). The teaching configs are in it; nothing is fetched, so it opens from disk.
 */
import { join, relative } from 'node:path';
import { playgroundHtml, playgroundScripts, teachingConfigs } from '../playground/html.js';
import { StagedOutput, checkOutputFolder } from '../report/output.js';

export interface PlaygroundOptions {
  out?: string;
  quiet?: boolean;
}

export async function playgroundCommand(opts: PlaygroundOptions): Promise<number> {
  const folder = checkOutputFolder(opts.out ?? join('out', 'playground'), 'playground');
  const html = playgroundHtml(teachingConfigs(), playgroundScripts());
  const out = new StagedOutput(folder);
  try {
    out.write('index.html', html);
    await out.publish({ accumulate: true });
  } finally {
    out.discard();
  }
  if (!opts.quiet) {
    const shown = relative(process.cwd(), folder.dir) || folder.dir;
    process.stdout.write(`playground: ${join(shown, 'index.html')} (open it in a browser; it needs no server and no network)\n`);
  }
  return 0;
}
