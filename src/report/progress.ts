/**
 * A progress bar on standard error when it is a terminal, with the time elapsed and an estimate of the
 * time left (cli-progress); silence otherwise (pipes, CI, tests).
 */
import { SingleBar } from 'cli-progress';

interface Progress {
  update(done: number, total: number): void;
  finish(): void;
}

const SILENT: Progress = { update() {}, finish() {} };

export function progressBar(label: string, stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return SILENT;
  const bar = new SingleBar({
    stream,
    format: `${label} [{bar}] {value}/{total} | {duration_formatted} elapsed | {eta_formatted} left`,
    barCompleteChar: '#',
    barIncompleteChar: '.',
    barsize: 30,
    hideCursor: true,
    clearOnComplete: false,
    etaBuffer: 20,
    // The bar is drawn on every update (points finish seconds apart), not on a timer that keeps the process alive.
    noTTYOutput: false,
    fps: 5,
  });
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        bar.start(total, done);
        started = true;
      } else {
        bar.setTotal(total);
        bar.update(done);
      }
    },
    finish() {
      if (started) bar.stop();
    },
  };
}
