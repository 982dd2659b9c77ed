import { useEffect, useState } from 'preact/hooks';
import { type ActivityEvent, type ActivityStats, errorText, readEvents, useApi } from '../api.js';
import type { ActivityChart as Chart } from './activity-chart.js';

const KEEP = 500;
/** The surfaces a call can come in through (`other`: a caller no surface made, such as the CLI's). */
const SURFACES = ['mcp', 'rest', 'a2a', 'code', 'other'];

/** The live call log (Server-Sent Events) with a tool filter, and per-tool figures of the last hour. */
export function ActivityPage() {
  const [events, setEvents] = useState<ActivityEvent[]>([]);
  const [filter, setFilter] = useState('');
  const [surface, setSurface] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [live, setLive] = useState(false);
  const [chartTool, setChartTool] = useState('');
  // The figures of the last hour, re-read every 5 s; a failed read keeps the last figures.
  const figures = useApi<ActivityStats>(
    `/api/admin/activity/stats${chartTool ? `?tool=${encodeURIComponent(chartTool)}` : ''}`,
    { refreshMs: 5000 },
  ).data;
  const stats = figures?.tools ?? [];
  const series = figures?.series ?? [];
  const [ChartView, setChartView] = useState<typeof Chart | undefined>();

  useEffect(() => {
    const controller = new AbortController();
    readEvents(
      '/api/admin/activity',
      (data) => {
        const event = JSON.parse(data) as ActivityEvent;
        setEvents((list) => [event, ...list].slice(0, KEEP));
      },
      controller.signal,
      () => setLive(true),
    ).catch((e: unknown) => {
      if (!controller.signal.aborted) setError(errorText(e));
    });
    // The chart library is loaded with this page only, never on the console's first load.
    import('./activity-chart.js').then(
      (module) => setChartView(() => module.ActivityChart),
      () => {},
    );
    return () => controller.abort();
  }, []);

  const shown = events.filter(
    (e) =>
      (!filter || e.tool.includes(filter) || e.caller.includes(filter)) &&
      (!surface || e.surface === surface),
  );
  return (
    <section aria-labelledby="activity-title">
      <h2 id="activity-title">Activity</h2>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <p data-testid="live-status" aria-live="polite">
        {live ? 'Live: new calls appear as they end.' : 'Connecting to the live log…'}
      </p>
      <label for="activity-filter">Filter by tool or caller</label>
      <input
        id="activity-filter"
        value={filter}
        onInput={(e) => setFilter((e.target as HTMLInputElement).value)}
      />
      <label for="activity-surface">Surface</label>
      <select
        id="activity-surface"
        value={surface}
        onChange={(e) => setSurface((e.target as HTMLSelectElement).value)}
      >
        <option value="">every surface</option>
        {SURFACES.map((s) => (
          <option key={s} value={s}>
            {s === 'code' ? 'code mode' : s}
          </option>
        ))}
      </select>
      <h3>Live calls</h3>
      <table data-testid="activity-log">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Caller</th>
            <th scope="col">Surface</th>
            <th scope="col">Tool</th>
            <th scope="col">ms</th>
            <th scope="col">Result</th>
            <th scope="col">Arguments (redacted)</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((e) => (
            <tr key={e.seq}>
              <td>{e.time.slice(11, 23)}</td>
              <td>{e.toolset ? `${e.caller} (${e.toolset})` : e.caller}</td>
              <td data-testid="surface">{e.surface}</td>
              <td>{e.tool}</td>
              <td>{e.durationMs.toFixed(1)}</td>
              <td>{e.code}</td>
              <td>
                <code>{JSON.stringify(e.args)}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Last hour, per minute</h3>
      <label for="chart-tool">Charts for</label>
      <select
        id="chart-tool"
        value={chartTool}
        onChange={(e) => setChartTool((e.target as HTMLSelectElement).value)}
      >
        <option value="">every tool</option>
        {stats.map((s) => (
          <option key={s.tool} value={s.tool}>
            {s.tool}
          </option>
        ))}
      </select>
      {ChartView && series.length > 0 && (
        <div data-testid="activity-charts">
          <ChartView series={series} kind="traffic" title="Calls and errors per minute" />
          <ChartView series={series} kind="latency" title="Latency per minute (ms)" />
        </div>
      )}
      <h3>Last hour, per tool</h3>
      <table>
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col">Calls</th>
            <th scope="col">Error rate</th>
            <th scope="col">p50 ms</th>
            <th scope="col">p95 ms</th>
          </tr>
        </thead>
        <tbody>
          {stats.map((s) => (
            <tr key={s.tool}>
              <td>{s.tool}</td>
              <td>{s.calls}</td>
              <td>{((100 * s.errors) / Math.max(1, s.calls)).toFixed(0)}%</td>
              <td>{s.p50Ms.toFixed(1)}</td>
              <td>{s.p95Ms.toFixed(1)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
