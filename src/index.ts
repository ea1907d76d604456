/**
 * rowsim as a library: load a config and run its storage workload, size a table in every format, or
 * estimate a reserve setting, in-process. The command line (bin/rowsim.js) is built on the same calls.
 */
export { loadConfig, loadEstimateConfig, type RunConfig } from './loader/config.js';
export { runStorage, type StorageRunResult } from './workload/runner.js';
export { availableFormats, getFormat } from './formats/registry.js';
export type { StorageFormat } from './formats/format.js';
export { runEstimate, inProcessRunner } from './estimate/estimate.js';
export { runContentionInProcess } from './contention/run.js';
export { InputError, UserError } from './config/errors.js';
export { ROWSIM_VERSION } from './version.js';
