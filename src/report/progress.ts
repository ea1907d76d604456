/**
 * A progress bar on standard error when it is a terminal; silence otherwise (pipes, CI, tests).
 */
export interface Progress {
  update(done: number, total: number): void;
  finish(): void;
}

export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return { update() {}, finish() {} };
  const width = 30;
  let shown = false;
  return {
    update(done, total) {
      const frac = total > 0 ? done / total : 1;
      const filled = Math.round(frac * width);
      stream.write(`\r${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total}`);
      shown = true;
    },
    finish() {
      if (shown) stream.write('\n');
    },
  };
}
