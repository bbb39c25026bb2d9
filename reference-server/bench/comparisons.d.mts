/** Types for bench/comparisons.mjs, so the package's TypeScript tests can import it. */
export interface FigureRow {
  id: string;
  value: number;
  store?: string;
  /** A drain's ack mode (`each` or `batch`), for the comparisons only. */
  _ack?: string;
  [field: string]: unknown;
}
export interface ComparisonRow {
  id: string;
  group: string;
  name: string;
  unit: string;
  value: number;
  store?: string;
  goal?: { of: "value"; op: ">="; target: number };
  notes: string;
}
export const COMPARISONS: { id: string; of: string; over: (row: FigureRow) => string[]; name: string }[];
export function compare(rows: FigureRow[]): {
  rows: ComparisonRow[];
  skipped: { ids: string[]; reason: string }[];
};
