/** The exit statuses of the rowsim command line (README: the command table; docs/estimate.md). */
export const EXIT_OK = 0;
/** An internal error (a bug of rowsim's). */
export const EXIT_INTERNAL = 1;
/** Bad input: config, CSV, DDL, a tool's output, arguments (`rowsim` without a command too: help is printed), output folder. */
export const EXIT_INPUT = 2;
/** `rowsim estimate` ran and recommends nothing: no setting meets the target, or the evidence cannot be reproduced. */
export const EXIT_NOT_APPLICABLE = 3;
/**
 * A failure outside rowsim, to be fixed there: `rowsim pg-check`'s server refused a statement, or the
 * connection could not be made or was lost. The status of bad input: the check did not happen.
 */
export const EXIT_EXTERNAL = 2;
