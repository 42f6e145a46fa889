// A small writer for the Prometheus text exposition format 0.0.4
// (https://prometheus.io/docs/instrumenting/exposition_formats/). Gauges for levels read from
// Redis at scrape time; counters for the running totals the watch keeps (watch-metrics.ts).

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export type Labels = Record<string, string>;

export interface Sample {
  labels?: Labels;
  value: number;
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Label values: backslash, double quote and line feed are escaped; everything else is literal UTF-8. */
export function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** HELP text: backslash and line feed are escaped. */
export function escapeHelp(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
}

export function formatValue(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Infinity) return "+Inf";
  if (value === -Infinity) return "-Inf";
  return String(value);
}

export class Exposition {
  private readonly lines: string[] = [];
  private readonly names = new Set<string>();

  /** One gauge family: HELP, TYPE, then its samples (none is fine: the family still shows). */
  gauge(name: string, help: string, samples: Iterable<Sample>): this {
    return this.family(name, "gauge", help, samples);
  }

  private family(name: string, type: "gauge" | "counter", help: string, samples: Iterable<Sample>): this {
    if (!METRIC_NAME.test(name)) throw new Error(`invalid metric name ${name}`);
    if (this.names.has(name)) throw new Error(`metric ${name} written twice`);
    this.names.add(name);
    this.lines.push(`# HELP ${name} ${escapeHelp(help)}`, `# TYPE ${name} ${type}`);
    for (const s of samples) this.lines.push(`${name}${formatLabels(s.labels)} ${formatValue(s.value)}`);
    return this;
  }

  /**
   * One counter family (a running total; Prometheus conventions: the name ends in `_total`,
   * and `rate()` of it is the per-second rate).
   */
  counter(name: string, help: string, samples: Iterable<Sample>): this {
    if (!name.endsWith("_total")) throw new Error(`counter ${name} must end in _total`);
    return this.family(name, "counter", help, samples);
  }

  toString(): string {
    return this.lines.length === 0 ? "" : `${this.lines.join("\n")}\n`;
  }
}

function formatLabels(labels: Labels | undefined): string {
  if (!labels) return "";
  const parts = Object.entries(labels).map(([k, v]) => {
    if (!LABEL_NAME.test(k) || k.startsWith("__")) throw new Error(`invalid label name ${k}`);
    return `${k}="${escapeLabelValue(v)}"`;
  });
  return parts.length === 0 ? "" : `{${parts.join(",")}}`;
}
