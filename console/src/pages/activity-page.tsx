import { useEffect, useState } from 'preact/hooks';
import {
  type ActivityEvent,
  type ActivityStats,
  type ApiError,
  asApiError,
  readEvents,
  useApi,
} from '../api.js';
import { EmptyState, ErrorState } from '../ui/states.js';
import type { ActivityChart as Chart } from './activity-chart.js';
import { ApprovalsView } from './approvals-view.js';
import { AuditView } from './audit-view.js';

const KEEP = 500;
/** The surfaces a call can come in through (`other`: a caller no surface made, such as the CLI's). */
const SURFACES = ['mcp', 'rest', 'a2a', 'code', 'other'];

/** The live call log (Server-Sent Events) with a tool filter, and per-tool figures of the last hour. */
export function ActivityPage() {
  const [events, setEvents] = useState<ActivityEvent[]>([]);
  const [filter, setFilter] = useState('');
  const [surface, setSurface] = useState('');
  const [error, setError] = useState<ApiError | undefined>();
  const [live, setLive] = useState(false);
  const [chartTool, setChartTool] = useState('');
  // The figures of the last hour, re-read every 5 s; a failed read keeps the last figures.
  const read = useApi<ActivityStats>(
    `/api/admin/activity/stats${chartTool ? `?tool=${encodeURIComponent(chartTool)}` : ''}`,
    { refreshMs: 5000 },
  );
  const figures = read.data;
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
      if (!controller.signal.aborted) setError(asApiError(e));
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
  // Refused (403) or unreachable before anything arrived: the whole page is that state.
  const refused = error ?? (figures === undefined ? read.failure : undefined);
  if (refused)
    return (
      <section aria-labelledby="activity-title">
        <div class="page-head">
          <h2 id="activity-title">Activity</h2>
        </div>
        <ErrorState failure={refused} what="The live call log" />
      </section>
    );
  return (
    <section aria-labelledby="activity-title">
      <div class="page-head">
        <div>
          <h2 id="activity-title">Activity</h2>
          <p>Every call through every surface, as it ends, and the last hour's figures.</p>
        </div>
        <p class={live ? 'live on' : 'live'} data-testid="live-status" aria-live="polite">
          {live ? 'Live: new calls appear as they end.' : 'Connecting to the live log…'}
        </p>
      </div>
      <ApprovalsView />
      <div class="filters">
        <div class="search-field">
          <label for="activity-filter">Filter by tool or caller</label>
          <input
            id="activity-filter"
            value={filter}
            onInput={(e) => setFilter((e.target as HTMLInputElement).value)}
          />
        </div>
        <div>
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
        </div>
      </div>
      <h3>Live calls</h3>
      {shown.length === 0 ? (
        <EmptyState
          title={events.length === 0 ? 'No calls yet' : 'No call matches the filters'}
          icon="activity"
        >
          {events.length === 0
            ? 'Calls appear here as they end: run a tool from the catalog, or connect an agent.'
            : 'Change the filter or the surface to see more.'}
        </EmptyState>
      ) : (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region needs a focus stop so keyboards can scroll it.
        <section class="table-wrap" tabIndex={0} aria-label="Live calls">
          <table data-testid="activity-log">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Caller</th>
                <th scope="col">Surface</th>
                <th scope="col">Tool</th>
                <th scope="col" class="num">
                  ms
                </th>
                <th scope="col">Result</th>
                <th scope="col">Arguments (redacted)</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((e) => (
                <tr key={e.seq}>
                  <td class="nowrap">{e.time.slice(11, 23)}</td>
                  <td class="nowrap">{e.toolset ? `${e.caller} (${e.toolset})` : e.caller}</td>
                  <td data-testid="surface">{e.surface}</td>
                  <td class="nowrap">{e.tool}</td>
                  <td class="num">{e.durationMs.toFixed(1)}</td>
                  <td>
                    <span class={`badge ${e.code === 'ok' ? 'ok' : 'bad'}`}>{e.code}</span>
                  </td>
                  <td class="args">
                    <code>{JSON.stringify(e.args)}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      <div class="card-head">
        <h3>Last hour, per minute</h3>
        <div>
          <label for="chart-tool" class="visually-hidden">
            Charts for
          </label>
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
        </div>
      </div>
      {ChartView && series.length > 0 ? (
        <div class="charts" data-testid="activity-charts">
          <ChartView series={series} kind="traffic" title="Calls and errors per minute" />
          <ChartView series={series} kind="latency" title="Latency per minute (ms)" />
        </div>
      ) : (
        <EmptyState title="Nothing to chart yet" icon="activity">
          The charts draw the calls of the last hour, a point a minute.
        </EmptyState>
      )}
      <h3>Last hour, per tool</h3>
      {stats.length === 0 ? (
        <EmptyState title="No calls in the last hour" icon="activity" />
      ) : (
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region needs a focus stop so keyboards can scroll it.
        <section class="table-wrap" tabIndex={0} aria-label="Last hour per tool">
          <table>
            <thead>
              <tr>
                <th scope="col">Tool</th>
                <th scope="col" class="num">
                  Calls
                </th>
                <th scope="col" class="num">
                  Error rate
                </th>
                <th scope="col" class="num">
                  p50 ms
                </th>
                <th scope="col" class="num">
                  p95 ms
                </th>
              </tr>
            </thead>
            <tbody>
              {stats.map((s) => (
                <tr key={s.tool}>
                  <td class="nowrap">{s.tool}</td>
                  <td class="num">{s.calls}</td>
                  <td class="num">{((100 * s.errors) / Math.max(1, s.calls)).toFixed(0)}%</td>
                  <td class="num">{s.p50Ms.toFixed(1)}</td>
                  <td class="num">{s.p95Ms.toFixed(1)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
      )}
      <AuditView />
    </section>
  );
}
