/**
 * The font every picture rowsim draws uses: DejaVu Sans from the dejavu-fonts-ttf package (a machine
 * without system fonts still gets legible text), registered once with the canvas the charts and the
 * page drawings render on.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { GlobalFonts } from '@napi-rs/canvas';

export const FONT_FAMILY = 'DejaVu Sans';

let done = false;

export function ensureFonts(): void {
  if (done) return;
  const req = createRequire(import.meta.url);
  const dir = path.join(path.dirname(req.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
  for (const file of ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf']) {
    const key = GlobalFonts.registerFromPath(path.join(dir, file), FONT_FAMILY);
    if (!key) throw new Error(`could not register font ${path.join(dir, file)}`);
  }
  done = true;
}
