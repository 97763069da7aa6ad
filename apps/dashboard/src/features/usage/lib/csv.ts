// CSV as RFC 4180 has it: comma separated, CRLF line ends, fields with a comma, quote or line break quoted and
// their quotes doubled. Spreadsheets run text that starts with = + - @ (or a tab or CR) as a formula, so such
// text cells get a leading apostrophe (OWASP's advice on CSV injection); numbers are written as they are.

export type CsvCell = string | number | null | undefined;

export interface CsvColumn<T> {
  header: string;
  value: (row: T) => CsvCell;
}

const FORMULA_START = /^[=+\-@\t\r]/;

export function csvField(cell: CsvCell): string {
  if (cell === null || cell === undefined) return '';
  if (typeof cell === 'number') return Number.isFinite(cell) ? String(cell) : '';
  const text = FORMULA_START.test(cell) ? `'${cell}` : cell;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A header line, then one line per row; every line ends with CRLF. */
export function buildCsv<T>(columns: readonly CsvColumn<T>[], rows: readonly T[]): string {
  const lines = [columns.map((column) => csvField(column.header))];
  for (const row of rows) lines.push(columns.map((column) => csvField(column.value(row))));
  return lines.map((cells) => `${cells.join(',')}\r\n`).join('');
}
