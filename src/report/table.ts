import { displayWidth } from './diagnostic-text.js';

/**
 * Rows under a header, columns aligned by display width (a Chinese name takes two columns a
 * character) and two spaces apart, one line each, with no trailing spaces. Cells are shown as
 * given: the caller escapes what came from outside.
 */
export function alignColumns(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  rightAligned: ReadonlySet<number> = new Set(),
): string {
  const widths = header.map((h, i) =>
    Math.max(displayWidth(h), ...rows.map((r) => displayWidth(r[i] ?? ''))),
  );
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, i) => {
        const pad = ' '.repeat(Math.max(0, (widths[i] ?? 0) - displayWidth(cell)));
        return rightAligned.has(i) ? pad + cell : cell + pad;
      })
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}
