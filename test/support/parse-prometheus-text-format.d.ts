/** Types of the untyped `parse-prometheus-text-format` package (prom2json-shaped output). */
declare module 'parse-prometheus-text-format' {
  export interface ParsedSample {
    value?: string;
    labels?: Record<string, string>;
    buckets?: Record<string, string>;
    count?: string;
    sum?: string;
  }
  export interface ParsedFamily {
    name: string;
    help: string;
    /** Upper case: COUNTER, GAUGE, HISTOGRAM, SUMMARY, UNTYPED. */
    type: string;
    metrics: ParsedSample[];
  }
  export default function parsePrometheusTextFormat(text: string): ParsedFamily[];
}
