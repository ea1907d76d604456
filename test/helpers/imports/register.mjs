// `node --import ./register.mjs …`: every module the process loads is appended to $ROWSIM_IMPORT_LOG,
// one URL a line (test/startup.test.ts reads it to see what a command loads). ES modules are seen by
// the loader hooks; CommonJS files loaded with require() (rowsim requires commander) by wrapping
// Module.prototype._compile, which every CommonJS file goes through.
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';
import { pathToFileURL } from 'node:url';

register('./hooks.mjs', import.meta.url);

const compile = Module.prototype._compile;
Module.prototype._compile = function (content, filename) {
  if (process.env.ROWSIM_IMPORT_LOG) appendFileSync(process.env.ROWSIM_IMPORT_LOG, `${pathToFileURL(filename).href}\n`);
  return compile.call(this, content, filename);
};
