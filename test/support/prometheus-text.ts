import parsePrometheusTextFormat from 'parse-prometheus-text-format';

/** One sample line: its labels and value. */
export interface PromSample {
  labels: Record<string, string>;
  value: number;
}

/** A parsed Prometheus text exposition. */
export interface Exposition {
  /** Family name → type (`counter`, `gauge`, `histogram`, …) as declared by `# TYPE`. */
  types: Map<string, string>;
  /** Sample name (with `_bucket`, `_sum`, `_count` for histograms) → its samples. */
  samples: Map<string, PromSample[]>;
}

/**
 * Parses Prometheus text with `parse-prometheus-text-format`, which throws on a malformed line.
 * That parser folds every series of a histogram into one (it keeps only unlabelled histograms), so
 * the text is parsed a second time with histogram and summary families declared untyped: then
 * `x_bucket`, `x_sum` and `x_count` come back as families of their own, labels intact.
 */
export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>();
  for (const family of parsePrometheusTextFormat(text)) types.set(family.name, family.type.toLowerCase());
  const flat = text.replace(/^# TYPE (\S+) (histogram|summary)$/gm, '# TYPE $1 untyped');
  const samples = new Map<string, PromSample[]>();
  for (const family of parsePrometheusTextFormat(flat)) {
    const list = samples.get(family.name) ?? [];
    for (const sample of family.metrics) {
      list.push({ labels: sample.labels ?? {}, value: Number(sample.value) });
    }
    samples.set(family.name, list);
  }
  return { types, samples };
}

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

/** The value of the sample `name` with exactly `labels`; 0 when there is none (a counter not yet incremented). */
export function sampleValue(
  exposition: Exposition,
  name: string,
  labels: Record<string, string> = {},
): number {
  const sample = exposition.samples.get(name)?.find((s) => sameLabels(s.labels, labels));
  return sample?.value ?? 0;
}

/** One histogram series: cumulative bucket counts by `le`, sum and count. */
export interface HistogramSeries {
  buckets: Map<string, number>;
  sum: number;
  count: number;
}

/** The series of histogram `name` with exactly `labels` (besides `le`), or undefined. */
export function histogramSeries(
  exposition: Exposition,
  name: string,
  labels: Record<string, string>,
): HistogramSeries | undefined {
  const buckets = new Map<string, number>();
  for (const sample of exposition.samples.get(`${name}_bucket`) ?? []) {
    const { le, ...rest } = sample.labels;
    if (le !== undefined && sameLabels(rest, labels)) buckets.set(le, sample.value);
  }
  if (buckets.size === 0) return undefined;
  return {
    buckets,
    sum: sampleValue(exposition, `${name}_sum`, labels),
    count: sampleValue(exposition, `${name}_count`, labels),
  };
}
