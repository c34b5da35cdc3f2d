/**
 * The benchmarks' results as Markdown tables (pasted as they are into bench/README.md and notes),
 * and the few figures taken over runs.
 */

/** One row: `| a | b |`; an empty cell is written `| |`. */
export function tableRow(cells: readonly string[]): string {
  return `|${cells.map((cell) => (cell ? ` ${cell} ` : ' ')).join('|')}|`;
}

/** The header and its rule, as two lines (rows printed as they come follow it). */
export function tableHead(header: readonly string[]): string {
  return `${tableRow(header)}\n|${header.map(() => '---').join('|')}|`;
}

export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [tableHead(header), ...rows.map(tableRow)].join('\n');
}

/** A figure with `digits` decimals; `–` where there is none (a counter that was not available). */
export function fixed(value: number | null | undefined, digits: number): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '–' : value.toFixed(digits);
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function mean(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0) / values.length;
}
