// `node --import ./register.mjs …`: every module the process loads is appended to $ROWSIM_IMPORT_LOG,
// one URL a line (test/startup.test.ts reads it to see what a command loads).
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
