import { useEffect, useRef, useState } from 'preact/hooks';
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
  const theme = useThemeChanges();
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
        ? [
            {},
            { label: 'calls', stroke: '#6366f1', width: 2 },
            { label: 'errors', stroke: '#ef4444', width: 2 },
          ]
        : [
            {},
            { label: 'p50 ms', stroke: '#10b981', width: 2 },
            { label: 'p95 ms', stroke: '#f59e0b', width: 2 },
          ];
    // Axes and grid in the theme's colours (uPlot draws on a canvas: CSS does not reach it).
    const css = getComputedStyle(document.documentElement);
    const text = css.getPropertyValue('--text-3').trim() || '#6b7385';
    const line = css.getPropertyValue('--border').trim() || '#e2e5ea';
    const axis: uPlot.Axis = {
      stroke: text,
      grid: { stroke: line, width: 1 },
      ticks: { stroke: line, width: 1 },
    };
    const chart = new uPlot(
      {
        title: props.title,
        width: Math.max(240, Math.min(900, host.current.clientWidth || 600)),
        height: 180,
        series,
        axes: [axis, axis],
        // Room on the right for the last time label.
        padding: [8, 24, 0, 0],
      },
      data,
      host.current,
    );
    return () => chart.destroy();
  }, [props.series, props.kind, props.title, theme]);
  return <div ref={host} role="img" aria-label={props.title} />;
}

/**
 * A count that grows whenever the theme changes (`data-theme` on `<html>`, set by the toggle and
 * when the system's preference changes): a canvas keeps the colours it was drawn with, so the
 * chart redraws.
 */
function useThemeChanges(): number {
  const [changes, setChanges] = useState(0);
  useEffect(() => {
    const bump = () => setChanges((n) => n + 1);
    const observer = new MutationObserver(bump);
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => observer.disconnect();
  }, []);
  return changes;
}
