/**
 * commander, loaded with require() rather than import: commander is CommonJS, and importing it through
 * the ES module loader (its esm.mjs wrapper, the CommonJS lexer, the translation) costs start-up time
 * that `rowsim --help` notices. Types come from its declarations as usual.
 */
import { createRequire } from 'node:module';

type Commander = typeof import('commander');

const commander = createRequire(import.meta.url)('commander') as Commander;

export const { Command, CommanderError, InvalidArgumentError } = commander;
export type Command = import('commander').Command;
export type CommanderError = import('commander').CommanderError;
