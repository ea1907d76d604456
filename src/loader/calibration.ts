/**
 * `contention.calibration: file.json`: read the file `rowsim calibrate` wrote (relative to the config),
 * check it, and apply its measured costs to the resolved spec. Problems are reported at the config's
 * `contention.calibration` key, naming the file and the key inside it.
 */
import { isAbsolute, resolve } from 'node:path';
import { readInputText } from '../config/read.js';
import { applyCalibrationToSpec, calibrationFileSchema } from '../contention/calibration-file.js';
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
  if (!r.success) {
    const first = r.error.issues[0]!;
    ctx.P.add(
      at,
      `expected a calibration file written by rowsim calibrate, found ${name} with ${first.path.join('.') || 'its top level'}: ${first.message}`,
    );
    return undefined;
  }
  return applyCalibrationToSpec(spec, r.data, name);
}
