// Module loader hooks (node:module register): log each loaded module's URL, then load it as usual.
import { appendFileSync } from 'node:fs';

export async function load(url, context, nextLoad) {
  if (process.env.ROWSIM_IMPORT_LOG) appendFileSync(process.env.ROWSIM_IMPORT_LOG, `${url}\n`);
  return nextLoad(url, context);
}
