import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import type { ActivityBucket as Bucket } from '../api.js';

let stylesAdded = false;
/** uPlot's stylesheet, added once when the first chart is drawn (a file of the console's own). */
function addStyles(): void {
  if (stylesAdded) return;
  stylesAdded = true;
  const link = document.createElement('link');
  link.rel = 'stylesheet';
  link.href = '/console/uplot.css';
  document.head.append(link);
}

/**
 * A uPlot chart over the last hour, per minute: `kind` `traffic` draws calls and errors, `latency`
 * p50 and p95. Its own chunk, loaded with the Activity page.
 */
export function ActivityChart(props: { series: Bucket[]; kind: 'traffic' | 'latency'; title: string }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!host.current) return undefined;
    addStyles();
    const x = props.series.map((b) => b.start / 1000);
    const data: uPlot.AlignedData =
      props.kind === 'traffic'
        ? [x, props.series.map((b) => b.calls), props.series.map((b) => b.errors)]
        : [x, props.series.map((b) => b.p50Ms), props.series.map((b) => b.p95Ms)];
    const series: uPlot.Series[] =
      props.kind === 'traffic'
        ? [{}, { label: 'calls', stroke: '#1d4ed8' }, { label: 'errors', stroke: '#b91c1c' }]
        : [{}, { label: 'p50 ms', stroke: '#047857' }, { label: 'p95 ms', stroke: '#b45309' }];
    const chart = new uPlot(
      { title: props.title, width: Math.min(900, host.current.clientWidth || 600), height: 180, series },
      data,
      host.current,
    );
    return () => chart.destroy();
  }, [props.series, props.kind, props.title]);
  return <div ref={host} role="img" aria-label={props.title} />;
}
