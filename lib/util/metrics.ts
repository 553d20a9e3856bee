// Metrics and their text exposition (Prometheus text format 0.0.4; adr/0042): counters, gauges
// and histograms with labels, kept in one registry and written out on demand. Counters and
// histograms are counted as things happen; a gauge is read when the text is written, from what
// already knows its value. Knows nothing of MCP: the names and what they count are the caller's.

/** What `text()` is served as. */
export const EXPOSITION_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** One counted thing, for one set of label values. */
export interface CounterSeries {
  inc(by?: number): void;
  value(): number;
}

export interface HistogramSeries {
  observe(value: number): void;
}

/** A family: one metric name, a series per set of label values (in the order of its names). */
interface Family<Series> {
  labels(...values: string[]): Series;
}

/** A gauge's value read at exposition: one number, or a value per set of label values. */
export type GaugeReading =
  | number
  | readonly { readonly labels: readonly string[]; readonly value: number }[]
  /** The gauge is left out of the text (what it measures is not there: Redis without --redis). */
  | undefined;

export interface MetricRegistry {
  counter(name: string, help: string, labelNames?: readonly string[]): Family<CounterSeries>;
  histogram(
    name: string,
    help: string,
    labelNames: readonly string[],
    buckets: readonly number[],
  ): Family<HistogramSeries>;
  /** A gauge whose value `read` gives each time the text is written. */
  gauge(name: string, help: string, labelNames: readonly string[], read: () => GaugeReading): void;
  /** Every metric, in the order defined, as the text exposition format says. */
  text(): string;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

interface Written {
  readonly name: string;
  write(lines: string[]): void;
}

export function createMetricRegistry(): MetricRegistry {
  const metrics: Written[] = [];

  function define(name: string, labelNames: readonly string[], reserved: readonly string[]) {
    if (!METRIC_NAME.test(name)) throw new Error(`Cannot define metric "${name}": invalid name`);
    if (metrics.some((metric) => metric.name === name)) {
      throw new Error(`Cannot define metric "${name}": it is defined already`);
    }
    for (const label of labelNames) {
      if (!LABEL_NAME.test(label) || label.startsWith("__") || reserved.includes(label)) {
        throw new Error(`Cannot define metric "${name}": invalid label name "${label}"`);
      }
    }
  }

  /** A family whose series are made on first use and kept, in the order first used. */
  function familyOf<Series>(
    name: string,
    labelNames: readonly string[],
    make: (labels: string) => Series,
  ): { family: Family<Series>; series: Map<string, { labels: string; series: Series }> } {
    const series = new Map<string, { labels: string; series: Series }>();
    const family: Family<Series> = {
      labels(...values) {
        if (values.length !== labelNames.length) {
          throw new Error(
            `Metric "${name}" has ${labelNames.length} label(s), given ${values.length}`,
          );
        }
        const key = values.join("\u0000");
        let found = series.get(key);
        if (found === undefined) {
          const labels = labelText(labelNames, values);
          found = { labels, series: make(labels) };
          series.set(key, found);
        }
        return found.series;
      },
    };
    return { family, series };
  }

  return {
    counter(name, help, labelNames = []) {
      define(name, labelNames, []);
      const made = familyOf(name, labelNames, () => {
        let count = 0;
        return {
          inc(by = 1) {
            count += by;
          },
          value: () => count,
        };
      });
      metrics.push({
        name,
        write(lines) {
          header(lines, name, help, "counter");
          for (const { labels, series } of made.series.values()) {
            lines.push(`${name}${labels} ${numberText(series.value())}`);
          }
        },
      });
      return made.family;
    },
    histogram(name, help, labelNames, buckets) {
      define(name, labelNames, ["le"]);
      const bounds = [...buckets].sort((a, b) => a - b);
      if (bounds.length === 0 || bounds.some((bound, i) => i > 0 && bound === bounds[i - 1])) {
        throw new Error(`Cannot define histogram "${name}": give distinct buckets`);
      }
      interface Kept extends HistogramSeries {
        readonly counts: number[];
        sum: number;
      }
      const made = familyOf<Kept>(name, labelNames, () => {
        const kept: Kept = {
          // Per bucket, the observations that fell in it (not cumulative: one increment each).
          counts: new Array(bounds.length + 1).fill(0),
          sum: 0,
          observe(value) {
            let index = 0;
            while (index < bounds.length && value > bounds[index]) index++;
            kept.counts[index]++;
            kept.sum += value;
          },
        };
        return kept;
      });
      const les = [...bounds.map(numberText), "+Inf"];
      metrics.push({
        name,
        write(lines) {
          header(lines, name, help, "histogram");
          for (const { labels, series } of made.series.values()) {
            let cumulative = 0;
            les.forEach((le, index) => {
              cumulative += series.counts[index];
              lines.push(`${name}_bucket${withLabel(labels, "le", le)} ${cumulative}`);
            });
            lines.push(`${name}_sum${labels} ${numberText(series.sum)}`);
            lines.push(`${name}_count${labels} ${cumulative}`);
          }
        },
      });
      return made.family;
    },
    gauge(name, help, labelNames, read) {
      define(name, labelNames, []);
      metrics.push({
        name,
        write(lines) {
          const reading = read();
          if (reading === undefined) return;
          header(lines, name, help, "gauge");
          if (typeof reading === "number") {
            lines.push(`${name}${labelText(labelNames, [])} ${numberText(reading)}`);
            return;
          }
          for (const { labels, value } of reading) {
            lines.push(`${name}${labelText(labelNames, labels)} ${numberText(value)}`);
          }
        },
      });
    },
    text() {
      const lines: string[] = [];
      for (const metric of metrics) metric.write(lines);
      return lines.length === 0 ? "" : `${lines.join("\n")}\n`;
    },
  };
}

function header(lines: string[], name: string, help: string, type: string): void {
  lines.push(`# HELP ${name} ${help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}`);
  lines.push(`# TYPE ${name} ${type}`);
}

/** `{a="x",b="y"}`, or nothing without labels; values escaped as the format says. */
function labelText(names: readonly string[], values: readonly string[]): string {
  if (names.length === 0) return "";
  const pairs = names.map((name, index) => `${name}="${escapeLabelValue(values[index] ?? "")}"`);
  return `{${pairs.join(",")}}`;
}

/** A label value as the text format writes it: `\`, `"` and line feeds escaped. */
function escapeLabelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (found) => found === "\n" ? "\\n" : `\\${found}`);
}

function withLabel(labels: string, name: string, value: string): string {
  const pair = `${name}="${value}"`;
  return labels === "" ? `{${pair}}` : `${labels.slice(0, -1)},${pair}}`;
}

/** A sample value: Go's float syntax, which JavaScript's numbers print in, and ±Inf, NaN. */
function numberText(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}
