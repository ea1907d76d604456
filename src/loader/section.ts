/**
 * What a config section's loader gets: the config as read, where problems go, and the parts of the
 * config other sections share (the table and the engine settings, resolved once).
 */
import type { EngineSpec, TableDef } from '../config/spec.js';
import type { Problems } from './problems.js';

export interface SectionContext {
  file: string;
  /** The config file's folder: relative paths (DDL, CSV) resolve against it. */
  baseDir: string;
  name: string;
  seed: number;
  /** The whole config as parsed (plain values). */
  raw: Record<string, unknown>;
  P: Problems;
  /** The config's table and engine settings, resolved; undefined when absent or wrong (already reported). */
  table?: TableDef;
  engine?: EngineSpec;
}
