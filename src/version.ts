/** rowsim's version, as in package.json. */
export const ROWSIM_VERSION = '0.1.0';
