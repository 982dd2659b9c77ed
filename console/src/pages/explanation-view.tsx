/** Why a search result ranks where it does, as `POST /api/search` with `explain: true` returns it. */
export interface SearchExplanation {
  score: number;
  strategy: string;
  expansions?: Record<string, string[]>;
  lexical?: {
    score: number;
    fields: Record<string, number>;
    terms: Record<string, Record<string, number>>;
    exactMatch?: 'id' | 'name';
    rank?: number;
    share?: number;
  };
  server?: { namespace: string; score: number; factor: number };
  vector?: { rank: number; share: number };
  learned?: { queries: string[]; rank?: number; share?: number };
  failures?: { factor: number };
}

const n = (value: number) => value.toFixed(2);
const pct = (share: number) => `${Math.round(share * 100)}%`;

/** The explanation in one line: the matched terms and the fields they matched in, and the other factors. */
export function explanationSummary(e: SearchExplanation): string {
  const parts: string[] = [];
  if (e.lexical?.exactMatch) parts.push(`exact ${e.lexical.exactMatch}`);
  const terms = Object.entries(e.lexical?.terms ?? {}).filter(([, fields]) => Object.keys(fields).length > 0);
  if (terms.length > 0)
    parts.push(
      `matched ${terms.map(([term, fields]) => `${term} (${Object.keys(fields).join(', ')})`).join('; ')}`,
    );
  if (e.vector) parts.push(`vector ${pct(e.vector.share)}`);
  if (e.learned?.queries.length) parts.push(`${e.learned.queries.length} learned queries`);
  if (e.server && e.server.factor !== 1) parts.push(`server ×${n(e.server.factor)}`);
  if (e.failures) parts.push(`failures ×${n(e.failures.factor)}`);
  return parts.length > 0 ? parts.join(' · ') : 'no lexical match';
}

/**
 * The whole explanation of one result: BM25F per field and per term, the server stage, the
 * vector and learned shares, the failure factor and the query's expansions.
 */
export function ExplanationView({
  id,
  explanation: e,
  onClose,
}: {
  id: string;
  explanation: SearchExplanation;
  onClose?: () => void;
}) {
  return (
    <div class="explanation" data-testid="explanation">
      <div class="explanation-head">
        <h3>Why {id} ranks here</h3>
        {onClose && (
          <button type="button" class="secondary small" onClick={onClose}>
            Close
          </button>
        )}
      </div>
      <p>
        Score {n(e.score)} (strategy {e.strategy})
      </p>
      <dl>
        {e.lexical && (
          <>
            <dt>Lexical (BM25F)</dt>
            <dd>
              score {n(e.lexical.score)}
              {e.lexical.rank !== undefined && `, rank ${e.lexical.rank}`}
              {e.lexical.share !== undefined && `, ${pct(e.lexical.share)} of the fused score`}
              {e.lexical.exactMatch && `, exact ${e.lexical.exactMatch} match`}
              {Object.keys(e.lexical.fields).length > 0 && (
                <section
                  class="table-wrap flat"
                  // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region needs a focus stop so keyboards can scroll it.
                  tabIndex={0}
                  aria-label="Parts of the score per term and field"
                >
                  <table>
                    <caption>Parts of the score per term and field</caption>
                    <thead>
                      <tr>
                        <th scope="col">Term</th>
                        {Object.keys(e.lexical.fields).map((field) => (
                          <th scope="col" key={field}>
                            {field}
                          </th>
                        ))}
                      </tr>
                    </thead>
                    <tbody>
                      {Object.entries(e.lexical.terms).map(([term, fields]) => (
                        <tr key={term}>
                          <th scope="row">{term}</th>
                          {Object.keys(e.lexical?.fields ?? {}).map((field) => (
                            <td key={field}>{fields[field] === undefined ? '' : n(fields[field])}</td>
                          ))}
                        </tr>
                      ))}
                      <tr>
                        <th scope="row">all terms</th>
                        {Object.entries(e.lexical.fields).map(([field, value]) => (
                          <td key={field}>{n(value)}</td>
                        ))}
                      </tr>
                    </tbody>
                  </table>
                </section>
              )}
            </dd>
          </>
        )}
        {e.server && (
          <>
            <dt>Server stage</dt>
            <dd>
              {e.server.namespace} scored {n(e.server.score)} against the query (best server 1); factor ×
              {n(e.server.factor)}
            </dd>
          </>
        )}
        {e.vector && (
          <>
            <dt>Vector</dt>
            <dd>
              rank {e.vector.rank} by cosine, {pct(e.vector.share)} of the fused score
            </dd>
          </>
        )}
        {e.learned && (
          <>
            <dt>Learned from use</dt>
            <dd>
              {e.learned.queries.length > 0
                ? e.learned.queries.map((q) => `“${q}”`).join(', ')
                : 'no query quoted'}
              {e.learned.rank !== undefined && `; rank ${e.learned.rank}`}
              {e.learned.share !== undefined && `, ${pct(e.learned.share)} of the fused score`}
            </dd>
          </>
        )}
        {e.failures && (
          <>
            <dt>Recent failures</dt>
            <dd>score ×{n(e.failures.factor)}</dd>
          </>
        )}
        {e.expansions && (
          <>
            <dt>Query expansions</dt>
            <dd>
              {Object.entries(e.expansions)
                .map(([word, into]) => `${word} → ${into.join(' ')}`)
                .join('; ')}
            </dd>
          </>
        )}
      </dl>
    </div>
  );
}
