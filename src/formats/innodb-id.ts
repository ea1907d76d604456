/**
 * The id of the InnoDB format, which `rowsim mysql-check` compares (src/mysqlcheck/check.ts). The format
 * module (innodb) owns it; until that module is registered, mysql-check refuses every config with a
 * message naming this id.
 */
export const INNODB_FORMAT_ID = 'innodb';
