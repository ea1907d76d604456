/** rowBytes of every live row, asked one row at a time: what an engine's rowSizes() reads in place. */
import type { RowSizes, StorageEngine } from '../../src/heap/engine.js';

export function rowSizesOneByOne(eng: StorageEngine): RowSizes {
  let min = 0x7fffffff;
  let max = 0;
  let sum = 0;
  let count = 0;
  for (let r = 0; count < eng.liveRows(); r++) {
    if (!eng.isLive(r)) continue;
    const b = eng.rowBytes(r);
    min = Math.min(min, b);
    max = Math.max(max, b);
    sum += b;
    count++;
  }
  return { min, max, sum, count };
}
