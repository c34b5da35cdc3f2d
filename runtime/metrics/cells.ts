/**
 * Counters and histograms kept as plain numbers by the hot paths, and handed to prom-client's
 * registry only when it is scraped. prom-client's own instruments hash and check their labels on
 * every addition; here a report finds its series through maps keyed by the label values as they
 * come (strings the runtime holds already, whose hashes are cached), and adds to a number.
 */
import type { Metric } from 'prom-client';
import { MAX_LABEL_VALUES, MAX_SERIES, OVERFLOW, labelText } from './labels.ts';

type Labels = Record<string, string>;

/** A sample as the registry formats it: `metricName` (the metric's own if absent), labels, value. */
interface Sample {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/** What the registry reads of a metric when scraped (prom-client's metric object, by shape). */
interface Exported {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  values: Sample[];
  aggregator: 'sum';
}

interface CounterCell {
  readonly labels: Labels;
  value: number;
}

interface HistogramCell {
  readonly labels: Labels;
  /** Observations per bucket (not cumulative), the last one past every bound (+Inf). */
  readonly buckets: Float64Array;
  sum: number;
  count: number;
}

/** Nested maps of the label values, in the order of the label names, down to a series. */
type Tree<C> = Map<string, Tree<C> | C>;

/**
 * What prom-client's registry reads of a metric when it is scraped.
 *
 * Its series are bounded whatever the values reported (`labels.ts`): each label has at most
 * `MAX_LABEL_VALUES` values under the same values of the labels before it, the metric at most
 * `MAX_SERIES` series, and the values past a cap are counted as `OVERFLOW`. A label shows a value
 * through `labelText`; values that show the same share their series.
 */
abstract class CellMetric<C extends { readonly labels: Labels }> {
  readonly name: string;
  readonly help: string;
  readonly aggregator = 'sum' as const;
  abstract readonly type: 'counter' | 'histogram';
  #tree: Tree<C> = new Map();
  protected cells: C[] = [];
  /** The series by the labels they show (`labelKey`). */
  readonly #shown = new Map<string, C>();
  readonly #labelNames: readonly string[];

  constructor(name: string, help: string, labelNames: readonly string[]) {
    this.name = name;
    this.help = help;
    this.#labelNames = labelNames;
  }

  /** How many series the metric has. */
  get size(): number {
    return this.cells.length;
  }

  /** The series of these label values (as many as the label names), made at its first use. */
  protected series(values: readonly string[]): C {
    let level: Tree<C> = this.#tree;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      const next = level.get(values[i]!) as Tree<C> | undefined;
      if (next === undefined) return this.#admit(values);
      level = next;
    }
    return (level.get(values[last]!) as C | undefined) ?? this.#admit(values);
  }

  /**
   * The series of values not all found as reported: each value admitted into its level, or
   * `OVERFLOW` past the level's cap; past the metric's cap, the one series whose labels all
   * show `OVERFLOW`, and nothing more is kept.
   */
  #admit(values: readonly string[]): C {
    if (this.cells.length >= MAX_SERIES) return this.#cellOf(values.map((v) => v === '\0' ? v : OVERFLOW));
    const shown: string[] = [];
    let level: Tree<C> = this.#tree;
    const last = values.length - 1;
    for (let i = 0; i < last; i++) {
      const value = level.has(values[i]!) ? values[i]! : admitted(level, values[i]!);
      let next = level.get(value) as Tree<C> | undefined;
      if (next === undefined) level.set(value, next = new Map());
      shown.push(value);
      level = next;
    }
    const value = level.has(values[last]!) ? values[last]! : admitted(level, values[last]!);
    shown.push(value);
    let cell = level.get(value) as C | undefined;
    if (cell === undefined) level.set(value, cell = this.#cellOf(shown));
    return cell;
  }

  /** The series that shows these values, made if none does yet. */
  #cellOf(values: readonly string[]): C {
    const labels = this.#labelsOf(values);
    const key = labelKey(labels);
    let cell = this.#shown.get(key);
    if (cell === undefined) {
      this.#shown.set(key, cell = this.make(labels));
      this.cells.push(cell);
    }
    return cell;
  }

  #labelsOf(values: readonly string[]): Labels {
    const labels: Labels = {};
    this.#labelNames.forEach((name, i) => { if (values[i] !== '\0') labels[name] = labelText(values[i]!); });
    return labels;
  }

  /**
   * Removes the series whose labels show these values (a namespace no longer served, say); a later
   * report of them starts them again.
   */
  forget(match: Labels): void {
    const shown = Object.entries(match).map(([name, value]) => [name, labelText(value)] as const);
    const matches = (cell: C) => shown.every(([name, value]) => cell.labels[name] === value);
    const gone = this.cells.filter(matches);
    if (!gone.length) return;
    this.cells = this.cells.filter((cell) => !matches(cell));
    for (const cell of gone) this.#shown.delete(labelKey(cell.labels));
    this.#tree = pruned(this.#tree, new Set(gone)) ?? new Map();
  }

  protected abstract make(labels: Labels): C;

  abstract get(): Promise<Exported>;
}

/**
 * A counter. A label value of `'\0'` leaves the label out of its series (a cluster-wide watch
 * stream has no namespace).
 */
export class CellCounter extends CellMetric<CounterCell> {
  readonly type = 'counter' as const;

  inc(...values: string[]): void {
    this.series(values).value++;
  }

  /** The series itself, for a caller that adds to it often (a watch stream's events of one type). */
  cell(...values: string[]): { value: number } {
    return this.series(values);
  }

  protected make(labels: Labels): CounterCell {
    return { labels, value: 0 };
  }

  async get(): Promise<Exported> {
    const values = this.cells.map(({ labels, value }) => ({ labels, value }));
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

/** Prometheus's default buckets, in seconds. */
const DEFAULT_BUCKETS: readonly number[] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class CellHistogram extends CellMetric<HistogramCell> {
  readonly type = 'histogram' as const;
  readonly #bounds: readonly number[];

  constructor(name: string, help: string, labelNames: readonly string[], bounds = DEFAULT_BUCKETS) {
    super(name, help, labelNames);
    this.#bounds = bounds;
  }

  observe(seconds: number, ...values: string[]): void {
    const cell = this.series(values);
    const bounds = this.#bounds;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i++;
    cell.buckets[i]!++;
    cell.sum += seconds;
    cell.count++;
  }

  protected make(labels: Labels): HistogramCell {
    return { labels, buckets: new Float64Array(this.#bounds.length + 1), sum: 0, count: 0 };
  }

  async get(): Promise<Exported> {
    const values: Sample[] = [];
    const bucket = `${this.name}_bucket`;
    for (const { labels, buckets, sum, count } of this.cells) {
      let cumulative = 0;
      this.#bounds.forEach((bound, i) => {
        cumulative += buckets[i]!;
        values.push({ metricName: bucket, labels: { le: bound, ...labels }, value: cumulative });
      });
      values.push({ metricName: bucket, labels: { le: '+Inf', ...labels }, value: count });
      values.push({ metricName: `${this.name}_sum`, labels, value: sum });
      values.push({ metricName: `${this.name}_count`, labels, value: count });
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
  }
}

/** A level's own value if it has room for one more, else `OVERFLOW` (which always has room). */
function admitted<C>(level: Tree<C>, value: string): string {
  return level.size < MAX_LABEL_VALUES || value === '\0' ? value : OVERFLOW;
}

/** One string for a series' labels as shown, for the series that show the same. */
function labelKey(labels: Labels): string {
  return JSON.stringify(labels);
}

/** The tree without the leaves in `gone`, and without the levels left empty; `undefined` if none is left. */
function pruned<C>(tree: Tree<C>, gone: ReadonlySet<C>): Tree<C> | undefined {
  for (const [value, next] of tree) {
    if (next instanceof Map) {
      const kept = pruned(next as Tree<C>, gone);
      if (kept === undefined) tree.delete(value);
    } else if (gone.has(next)) {
      tree.delete(value);
    }
  }
  return tree.size ? tree : undefined;
}

/** Registers a cell metric with a registry, which reads it as it reads its own (through `get()`). */
export function asMetric(metric: CellMetric<{ readonly labels: Labels }>): Metric {
  return metric as unknown as Metric;
}
