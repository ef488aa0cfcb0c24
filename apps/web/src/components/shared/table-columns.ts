import type { ColumnProps } from '@douyinfe/semi-ui/lib/es/table';

/** A column's identity: its key, else its dataIndex. */
export function columnKey<Row extends object>(column: ColumnProps<Row>): string {
  return String(column.key ?? column.dataIndex ?? '');
}

/**
 * Phones keep only the columns named in `phone` (name, status, the key figure, actions), unfixed so
 * they share the 390 px; wider screens keep every column.
 */
export function columnsForScreen<Row extends object>(columns: ColumnProps<Row>[], narrow: boolean, phone: readonly string[]): ColumnProps<Row>[] {
  if (!narrow) return columns;
  return columns.filter((column) => phone.includes(columnKey(column))).map(({ fixed: _fixed, width: _width, ...column }) => column);
}

/** The sum of the given column widths, for a table's `scroll.x`; a column without one (it takes the rest) adds nothing. */
export function columnsWidth<Row extends object>(columns: ColumnProps<Row>[]): number {
  return columns.reduce((sum, column) => sum + (typeof column.width === 'number' ? column.width : 0), 0);
}
