/**
 * `contention.calibration: file.json`: read the file `rowsim calibrate` wrote (relative to the config),
 * check it, and apply its measured costs to the resolved spec. A file that is not valid JSON is reported
 * at the config's `contention.calibration` key; a wrong or contradictory figure inside it at its own line
 * and column in the file, with its key path (JSON is read as YAML to place it).
 */
import { isAbsolute, resolve } from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { YamlLocator } from '../config/locate.js';
import { readInputText } from '../config/read.js';
import {
  applyCalibrationToSpec,
  calibrationContradictions,
  calibrationFileSchema,
  type CalibrationContradiction,
} from '../contention/calibration-file.js';
import type { ContentionSpec } from '../contention/schema.js';
import type { SectionContext } from './section.js';

export function applyCalibrationFile(spec: ContentionSpec, name: string, ctx: SectionContext): ContentionSpec | undefined {
  const at = ['contention', 'calibration'];
  const path = isAbsolute(name) ? name : resolve(ctx.baseDir, name);
  const read = readInputText(path);
  if (!read.ok) {
    ctx.P.add(at, `expected a calibration file written by rowsim calibrate (${name}): ${read.problem}`);
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(read.text);
  } catch (err) {
    ctx.P.add(
      at,
      `expected a calibration file of JSON written by rowsim calibrate, found invalid JSON in ${name} (${(err as Error).message})`,
    );
    return undefined;
  }
  const r = calibrationFileSchema.safeParse(json);
  const wrong: CalibrationContradiction[] = r.success
    ? calibrationContradictions(r.data)
    : r.error.issues.map((i) => ({
        path: i.path.map((p) => (typeof p === 'number' ? p : String(p))),
        message: i.message.replace(/^(Invalid input|Too small|Too big): /, '').replace('received', 'found'),
      }));
  if (r.success && wrong.length === 0) return applyCalibrationToSpec(spec, r.data, name);
  const lines = new LineCounter();
  const locator = new YamlLocator(parseDocument(read.text, { lineCounter: lines }), lines, path);
  for (const w of wrong) {
    const p = locator.problem(w.path, `${w.message} (contention.calibration)`);
    ctx.P.push(w.path.length ? p : { ...p, key: 'its top level' });
  }
  return undefined;
}
