/**
 * The terminal's tables (src/report/terminal.ts): a table of printable ASCII is laid out by rowsim, any
 * other by cli-table3. The two must lay out alike: random tables (words, runs of spaces, words wider than
 * their column, empty cells) drawn both ways give the same lines.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cliTableLines, plainTableLines, terminalTable } from '../src/report/terminal.js';

const word = fc.stringMatching(/^[a-z0-9_%,.()=-]{0,14}$/);
const cell = fc
  .array(fc.tuple(word, fc.constantFrom(' ', ' ', '  ', '   ')), { maxLength: 5 })
  .map((parts) => parts.flat().join('').slice(0, -1));

describe('terminal tables', () => {
  it('lays out printable ASCII as cli-table3 does: wrapped at spaces, too-long lines cut with …, aligned, two spaces apart', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 5 })
          .chain((columns) =>
            fc.tuple(
              fc.array(fc.integer({ min: 1, max: 16 }), { minLength: columns, maxLength: columns }),
              fc.array(fc.constantFrom<'left' | 'right'>('left', 'right'), { minLength: columns, maxLength: columns }),
              fc.array(fc.array(fc.oneof(cell, word), { minLength: columns, maxLength: columns }), { minLength: 1, maxLength: 6 }),
            ),
          ),
        ([widths, aligns, body]) => {
          expect(plainTableLines(body, widths, aligns)).toEqual(cliTableLines(body, widths, aligns));
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('a title that wraps a word a line, right-aligned over its cells', () => {
    const text = terminalTable(
      [{ title: 'point' }, { title: 'exp_row_size (bytes)', wrapTitle: true }, { title: 'peak fwd %' }],
      [
        ['exp_row_size=1', '0', '78.33%'],
        ['exp_row_size=max', '220', '0%'],
      ],
      { width: 100 },
    );
    expect(text.split('\n')).toEqual([
      'point             exp_row_size  peak fwd %',
      '                       (bytes)',
      '----------------  ------------  ----------',
      'exp_row_size=1               0      78.33%',
      'exp_row_size=max           220          0%',
    ]);
  });

  it('text that is not printable ASCII (a wide character, an accent) is laid out by cli-table3, by its width on the terminal', () => {
    const columns = [{ title: 'label' }, { title: 'n' }];
    const rows = [
      ['数据 e\u0301', '1'],
      ['plain', '22'],
    ];
    const text = terminalTable(columns, rows, { width: 100 });
    const lines = cliTableLines([['label', 'n'], ['-----', '--'], ...rows], [5, 2], ['left', 'right']).map((l) => l.replace(/\s+$/, ''));
    expect(text).toBe(lines.join('\n'));
    // Counted a character a column, the wide characters would overflow their column.
    const body = [['label', 'n'], ['-----', '--'], ...rows];
    expect(plainTableLines(body, [5, 2], ['left', 'right'])).not.toEqual(cliTableLines(body, [5, 2], ['left', 'right']));
  });
});
