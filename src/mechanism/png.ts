/** An SVG drawing rendered to PNG with the canvas the charts use, and the font they register. */
import { createCanvas, Image } from '@napi-rs/canvas';
import { ensureFonts } from '../util/fonts.js';

export function svgToPng(svg: string, scale = 1): Buffer {
  ensureFonts();
  const img = new Image();
  img.src = Buffer.from(svg);
  const canvas = createCanvas(Math.ceil(img.width * scale), Math.ceil(img.height * scale));
  const ctx = canvas.getContext('2d');
  ctx.scale(scale, scale);
  ctx.drawImage(img, 0, 0);
  return canvas.toBuffer('image/png');
}
