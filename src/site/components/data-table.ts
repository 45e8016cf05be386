/** The columns and rows `DataTable.astro` renders: a table on a wide screen, a card per row on a phone. */
export interface TableColumn {
  label: string;
  /** Right-aligned, tabular figures. */
  num?: boolean;
  /** The column's cells head their rows (`<th scope="row">`). */
  rowHeader?: boolean;
  /** The cells are file paths: they break after a `/`, not inside a name. */
  path?: boolean;
}

export interface LinkCell {
  text: string;
  href?: string;
  title?: string;
  /** Muted text after the cell's text (a weekday). */
  note?: string;
  /** Shown as a comma-separated list of `<code>` (branch names). */
  codes?: string[];
}

export type TableCell = string | number | LinkCell;

export interface TableRow {
  cells: TableCell[];
  /** A row with nothing in it (a quiet day): muted. */
  quiet?: boolean;
}

export function cellOf(cell: TableCell): LinkCell {
  if (typeof cell === 'number') return { text: cell.toLocaleString('en-US') };
  return typeof cell === 'string' ? { text: cell } : cell;
}
