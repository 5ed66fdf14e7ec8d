/**
 * Running statistics of one CSV column in constant memory: counts, a
 * compensated sum (Neumaier, so a million small values do not drift),
 * Welford's mean and variance, numeric min/max, a capped table of distinct
 * values, and the first few cells that were not numbers, with where they were.
 * A column none of whose cells is a number is text: its summary leaves the
 * numeric statistics out (a "sum 0" of names says nothing) and gives its
 * distinct and most frequent values instead.
 */
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const MAX_EXAMPLES = 5;
/** Distinct values are compared on their first characters only: a long cell cannot blow the memory bound. */
const MAX_DISTINCT_KEY_CHARS = 200;
const TOP_VALUES = 10;

/** A cell as a number, or undefined when it is not one. Plain decimal and exponent forms only: no "1,5", "$3", "NaN", "Infinity". */
export function parseNumber(cell: string): number | undefined {
  const t = cell.trim();
  if (!NUMBER.test(t)) return undefined;
  const n = Number(t);
  return Number.isFinite(n) ? n : undefined;
}

interface BadCell {
  /** Data row, 1-based, the header not counted. */
  row: number;
  /** Line of the file where the record ends. */
  line: number;
  value: string;
}

/** number: some cell is a number; text: cells, none a number; empty: no cell at all. */
type ColumnKind = 'number' | 'text' | 'empty';

export interface ColumnSummary {
  name: string;
  index: number;
  kind: ColumnKind;
  count: number;
  empty: number;
  numeric: number;
  non_numeric: { count: number; examples: BadCell[] };
  sum?: number;
  average?: number | null;
  min?: number | null;
  max?: number | null;
  stddev?: number | null;
  distinct?: { count: number; capped: boolean; top: Array<{ value: string; count: number }> };
}

/** What analyze_csv can compute; the input schema's enum and the Operation type both come from this list. */
export const OPERATIONS = ['sum', 'average', 'count', 'min', 'max', 'distinct', 'describe'] as const;
export type Operation = (typeof OPERATIONS)[number];

export class ColumnStats {
  private count = 0;
  private empty = 0;
  private numeric = 0;
  private sum = 0;
  private compensation = 0;
  private mean = 0;
  private m2 = 0;
  private min = Infinity;
  private max = -Infinity;
  private badCount = 0;
  private readonly bad: BadCell[] = [];
  /** Kept while asked for, or while the column may be text (no number seen yet), to summarise it as text. */
  private distinct: Map<string, number> | undefined = new Map();
  private distinctCapped = false;

  constructor(
    readonly name: string,
    readonly index: number,
    private readonly distinctAsked: boolean,
    private readonly maxDistinct: number,
  ) {}

  add(cell: string | undefined, row: number, line: number): void {
    if (cell === undefined || cell.trim() === '') {
      this.empty++;
      return;
    }
    this.count++;
    if (this.distinct) this.addDistinct(cell.length > MAX_DISTINCT_KEY_CHARS ? cell.slice(0, MAX_DISTINCT_KEY_CHARS) : cell);
    const n = parseNumber(cell);
    if (n === undefined) {
      this.badCount++;
      if (this.bad.length < MAX_EXAMPLES) this.bad.push({ row, line, value: cell.length > 80 ? `${cell.slice(0, 80)}…` : cell });
      return;
    }
    this.numeric++;
    // Not text after all: the values are no longer needed unless they were asked for.
    if (!this.distinctAsked) this.distinct = undefined;
    // Neumaier's compensated summation.
    const t = this.sum + n;
    this.compensation += Math.abs(this.sum) >= Math.abs(n) ? this.sum - t + n : n - t + this.sum;
    this.sum = t;
    const delta = n - this.mean;
    this.mean += delta / this.numeric;
    this.m2 += delta * (n - this.mean);
    if (n < this.min) this.min = n;
    if (n > this.max) this.max = n;
  }

  private addDistinct(key: string): void {
    const map = this.distinct!;
    const seen = map.get(key);
    if (seen !== undefined) map.set(key, seen + 1);
    else if (map.size < this.maxDistinct) map.set(key, 1);
    else this.distinctCapped = true;
  }

  /** The statistics the operations asked for. */
  summary(ops: ReadonlySet<Operation>): ColumnSummary {
    const all = ops.has('describe');
    const has = this.numeric > 0;
    const kind: ColumnKind = has ? 'number' : this.count > 0 ? 'text' : 'empty';
    const out: ColumnSummary = {
      name: this.name,
      index: this.index,
      kind,
      count: this.count,
      empty: this.empty,
      numeric: this.numeric,
      non_numeric: { count: this.badCount, examples: this.bad },
    };
    if (kind === 'number') {
      if (all || ops.has('sum')) out.sum = this.sum + this.compensation;
      if (all || ops.has('average')) out.average = (this.sum + this.compensation) / this.numeric;
      if (all || ops.has('min')) out.min = this.min;
      if (all || ops.has('max')) out.max = this.max;
      if (all) out.stddev = this.numeric > 1 ? Math.sqrt(this.m2 / (this.numeric - 1)) : null;
    }
    // A text column asked for numbers answers with what it has: its values.
    if (this.distinct && (this.distinctAsked || (kind === 'text' && wantsNumbers(ops)))) {
      const top = [...this.distinct]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, TOP_VALUES)
        .map(([value, count]) => ({ value, count }));
      out.distinct = { count: this.distinct.size, capped: this.distinctCapped, top };
    }
    return out;
  }
}

/** Whether any operation needs numbers (so that non-numeric cells deserve an explanation). */
export function wantsNumbers(ops: ReadonlySet<Operation>): boolean {
  return (['sum', 'average', 'min', 'max', 'describe'] as const).some((op) => ops.has(op));
}
