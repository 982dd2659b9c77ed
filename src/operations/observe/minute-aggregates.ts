/**
 * Per-tool, per-minute call figures for the last `keepMinutes` minutes: exact counts and errors,
 * and latency in a log-scaled histogram (each bin 25% wider than the last, from 10 µs), so the
 * console's hour of charts holds however many calls pass — the feed's ring keeps only the last
 * calls themselves. Memory: one small histogram per tool active in a minute.
 */
export class MinuteAggregates {
  private readonly minutes = new Map<number, Map<string, MinuteFigures>>();

  constructor(private readonly keepMinutes = 61) {}

  record(tool: string, atMs: number, durationMs: number, failed: boolean): void {
    const minute = Math.floor(atMs / MINUTE_MS) * MINUTE_MS;
    let tools = this.minutes.get(minute);
    if (!tools) {
      tools = new Map();
      this.minutes.set(minute, tools);
      const oldest = minute - this.keepMinutes * MINUTE_MS;
      for (const start of this.minutes.keys()) if (start <= oldest) this.minutes.delete(start);
    }
    let figures = tools.get(tool);
    if (!figures) {
      figures = emptyFigures();
      tools.set(tool, figures);
    }
    figures.calls += 1;
    if (failed) figures.errors += 1;
    const bin = binOf(durationMs);
    figures.bins[bin] = (figures.bins[bin] ?? 0) + 1;
  }

  /** The figures of the minutes starting in [from, to), of one tool or (no `tool`) per tool. */
  figures(from: number, to: number, tool?: string): Map<string, MinuteFigures> {
    const merged = new Map<string, MinuteFigures>();
    for (const [start, tools] of this.minutes) {
      if (start < from || start >= to) continue;
      for (const [name, figures] of tools) {
        if (tool !== undefined && name !== tool) continue;
        let into = merged.get(name);
        if (!into) {
          into = emptyFigures();
          merged.set(name, into);
        }
        addInto(into, figures);
      }
    }
    return merged;
  }
}

/** Calls, errors and the latency histogram of one tool over some minutes. */
export interface MinuteFigures {
  calls: number;
  errors: number;
  bins: Uint32Array;
}

/** The upper edge of the histogram bin holding the `p` quantile (nearest rank), in ms; 0 for none. */
export function histogramPercentile(figures: MinuteFigures, p: number): number {
  if (figures.calls === 0) return 0;
  const rank = Math.min(figures.calls, Math.max(1, Math.ceil(p * figures.calls)));
  let seen = 0;
  for (let i = 0; i < BINS; i++) {
    seen += figures.bins[i] ?? 0;
    if (seen >= rank) return Math.round(upperEdge(i) * 1000) / 1000;
  }
  return Math.round(upperEdge(BINS - 1) * 1000) / 1000;
}

/** Merges figures of several tools into one. */
export function mergeFigures(list: Iterable<MinuteFigures>): MinuteFigures {
  const into = emptyFigures();
  for (const figures of list) addInto(into, figures);
  return into;
}

function emptyFigures(): MinuteFigures {
  return { calls: 0, errors: 0, bins: new Uint32Array(BINS) };
}

function addInto(into: MinuteFigures, figures: MinuteFigures): void {
  into.calls += figures.calls;
  into.errors += figures.errors;
  for (let i = 0; i < BINS; i++) into.bins[i] = (into.bins[i] ?? 0) + (figures.bins[i] ?? 0);
}

export const MINUTE_MS = 60_000;
const BINS = 80;
const BASE_MS = 0.01;
const GROWTH = 1.25;

function binOf(durationMs: number): number {
  if (!(durationMs > BASE_MS)) return 0;
  return Math.min(BINS - 1, Math.ceil(Math.log(durationMs / BASE_MS) / Math.log(GROWTH)));
}

function upperEdge(bin: number): number {
  return BASE_MS * GROWTH ** bin;
}
