import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { type ApiError, api, asApiError, type TokenCosts, type ToolSummary, useApi } from '../api.js';
import { Icon } from '../ui/icons.js';
import { EmptyState, ErrorState, LoadingState } from '../ui/states.js';
import { ExplanationView, explanationSummary, type SearchExplanation } from './explanation-view.js';

type Result = ToolSummary & { explanation?: SearchExplanation };

const ROW = 64;

/**
 * Every tool the caller may see, paged through `/api/tools` (100 a page, the API's maximum);
 * `onPage` gets the tools so far after each page, so the list (and search) is usable at once.
 */
async function loadAll(onPage: (tools: ToolSummary[]) => void): Promise<ToolSummary[]> {
  const tools: ToolSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await api<{ tools: ToolSummary[]; nextCursor?: string }>(
      `/api/tools?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    tools.push(...page.tools);
    cursor = page.nextCursor;
    if (cursor) onPage([...tools]);
  } while (cursor);
  return tools;
}

/**
 * The catalog: every tool (virtualised: only the rows in view are in the DOM, so 5,000 tools
 * cost what 20 do), a namespace filter, and a search box that runs the real `search_tools`
 * ranking (`POST /api/search`) as one types.
 */
export function CatalogPage() {
  const [tools, setTools] = useState<ToolSummary[] | undefined>();
  const [complete, setComplete] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const [query, setQuery] = useState('');
  const [namespace, setNamespace] = useState('');
  const [results, setResults] = useState<Result[] | undefined>();
  const [why, setWhy] = useState<string | undefined>();
  const [strategy, setStrategy] = useState<string | undefined>();
  const [scrollTop, setScrollTop] = useState(0);
  const list = useRef<HTMLUListElement>(null);
  const panel = useRef<HTMLDivElement>(null);
  // Asked once the catalog is in: the meter counts the same tools the list shows.
  const tokens = useApi<TokenCosts>(complete ? '/api/admin/tokens' : undefined).data;

  useEffect(() => {
    loadAll(setTools).then(
      (all) => {
        setTools(all);
        setComplete(true);
      },
      (e: unknown) => setError(asApiError(e)),
    );
  }, []);

  useEffect(() => {
    if (!query.trim()) {
      setResults(undefined);
      return undefined;
    }
    // The newest query wins: an older answer arriving late is dropped.
    let current = true;
    // `explain` makes each result carry why it matched, shown compactly per row and in full on demand.
    api<{ tools: Result[]; strategy?: string }>('/api/search', {
      method: 'POST',
      body: { query, limit: 50, explain: true, ...(namespace ? { namespace } : {}) },
    }).then(
      (page) => {
        if (!current) return;
        setError(undefined);
        setResults(page.tools);
        setWhy(undefined);
        setStrategy(page.strategy);
      },
      (e: unknown) => current && setError(asApiError(e)),
    );
    return () => {
      current = false;
    };
  }, [query, namespace]);

  const namespaces = useMemo(() => [...new Set((tools ?? []).map((t) => t.namespace))].sort(), [tools]);
  const shown: Result[] = results ?? (tools ?? []).filter((t) => !namespace || t.namespace === namespace);
  const height = list.current?.clientHeight ?? 600;
  const first = Math.max(0, Math.floor(scrollTop / ROW) - 5);
  const last = Math.min(shown.length, Math.ceil((scrollTop + height) / ROW) + 5);

  const chosen = why ? results?.find((r) => r.id === why) : undefined;
  // The explanation opens beside the list (below it on narrow screens): brought into view either way.
  useEffect(() => {
    if (chosen) panel.current?.scrollIntoView({ block: 'nearest' });
  }, [chosen?.id]);

  return (
    <section aria-labelledby="catalog-title">
      <div class="page-head">
        <div>
          <h2 id="catalog-title">Catalog</h2>
          <p>Every tool you may call, searched with the same ranking agents get from search_tools.</p>
        </div>
      </div>
      <div class="filters">
        <div class="search-field">
          <label for="search">Search tools</label>
          <Icon name="search" />
          <input
            id="search"
            type="search"
            value={query}
            placeholder="What should the tool do?"
            onInput={(e) => setQuery((e.target as HTMLInputElement).value)}
          />
        </div>
        <div>
          <label for="namespace">Namespace</label>
          <select
            id="namespace"
            value={namespace}
            onChange={(e) => setNamespace((e.target as HTMLSelectElement).value)}
          >
            <option value="">all</option>
            {namespaces.map((ns) => (
              <option key={ns} value={ns}>
                {ns}
              </option>
            ))}
          </select>
        </div>
      </div>
      {error && tools !== undefined && (
        <p class="error" role="alert">
          {error.code}: {error.message}
        </p>
      )}
      <div class="meters">
        <p class="meter" aria-live="polite" data-testid="count">
          {tools === undefined
            ? error
              ? 'The catalog could not be read.'
              : 'Loading the catalog…'
            : results
              ? `${results.length} results for “${query}” (search_tools ranking${strategy ? `, strategy ${strategy}` : ''}; score as search returns it)`
              : `${shown.length} of ${tools.length} tools${complete ? '' : ' (loading more…)'}`}
        </p>
        {tokens && (
          <div class="token-meter">
            <Icon name="info" />
            <p class="meter" data-testid="token-meter">
              Token meter — what an agent reads for these {tokens.tools} tools: listed flat in tools/list{' '}
              <strong>{tokens.flat.toLocaleString('en')}</strong> tokens; through the metatools (their
              entries, one search and one describe) <strong>{tokens.metatools.toLocaleString('en')}</strong>{' '}
              tokens (
              {tokens.counter === 'estimate'
                ? 'estimated, about 4 characters a token'
                : `counted with ${tokens.counter}`}
              ).
            </p>
          </div>
        )}
      </div>
      {tools === undefined && error ? (
        <ErrorState failure={error} what="The catalog" />
      ) : tools === undefined ? (
        <LoadingState what="Loading the catalog…" />
      ) : shown.length === 0 ? (
        results ? (
          <EmptyState title={`No tool matches “${query}”`} icon="search">
            Try other words for what the tool should do{namespace ? ', or search every namespace' : ''}.
          </EmptyState>
        ) : (
          <EmptyState title="No tools here yet">
            {tools.length === 0
              ? 'No tool is visible to you: configure a server, or ask an admin for a toolset that has some.'
              : 'No tool in this namespace.'}
          </EmptyState>
        )
      ) : (
        <div class={chosen ? 'catalog-layout with-why' : 'catalog-layout'}>
          <ul
            class="list"
            ref={list}
            aria-label={results ? 'Search results' : 'Tools'}
            // As tall as its rows, up to most of the screen: five results leave no empty box below.
            style={{ height: `min(62vh, ${shown.length * ROW + 2}px)` }}
            onScroll={(e) => setScrollTop((e.target as HTMLUListElement).scrollTop)}
          >
            <li aria-hidden="true" style={{ height: `${shown.length * ROW}px`, listStyle: 'none' }} />
            {shown.slice(first, last).map((tool, i) => (
              <li
                class={why === tool.id ? 'row chosen' : 'row'}
                key={tool.id}
                style={{ top: `${(first + i) * ROW}px` }}
              >
                <a href={`#/tool/${encodeURIComponent(tool.id)}`}>{tool.id}</a>
                {tool.title && <span class="title"> — {tool.title}</span>}
                {tool.score !== undefined && <span class="score">score {tool.score.toFixed(3)}</span>}
                {(tool.tags ?? []).map((tag) => (
                  <span class="tag" key={tag}>
                    {tag}
                  </span>
                ))}
                {tool.explanation ? (
                  <div class="desc why-line">
                    <button
                      type="button"
                      class="link"
                      aria-expanded={why === tool.id}
                      aria-controls="explanation-panel"
                      onClick={() => setWhy(why === tool.id ? undefined : tool.id)}
                    >
                      Why {tool.id}?
                    </button>{' '}
                    <span data-testid={`why-${tool.id}`}>{explanationSummary(tool.explanation)}</span>
                  </div>
                ) : (
                  <div class="desc">{tool.description}</div>
                )}
              </li>
            ))}
          </ul>
          <div id="explanation-panel" class="why-panel" ref={panel} aria-live="polite">
            {chosen?.explanation ? (
              <ExplanationView
                id={chosen.id}
                explanation={chosen.explanation}
                onClose={() => setWhy(undefined)}
              />
            ) : null}
          </div>
        </div>
      )}
    </section>
  );
}
