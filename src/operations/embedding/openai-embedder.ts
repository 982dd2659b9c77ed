import { GatewayError } from '../../foundation/model/gateway-error.js';
import {
  type Embedder,
  normalizeVector,
  throwIfEmbeddingCancelled,
} from '../../foundation/ports/embedder.js';

export interface OpenAiEmbedderOptions {
  /** Base URL of the API, e.g. `https://api.openai.com/v1` or `http://localhost:11434/v1`; `/embeddings` is appended. */
  url: string;
  /** Model name sent with each request. */
  model: string;
  /** Bearer token, when the endpoint needs one. */
  apiKey?: string;
  /** Asks for shorter vectors (models that support it). */
  dimensions?: number;
  /** Texts per request. Default 64. */
  batchSize?: number;
  /** Per-request timeout. Default 30 s. */
  timeoutMs?: number;
}

interface EmbeddingsResponse {
  data?: { index?: number; embedding?: unknown }[];
}

/**
 * An embedder behind any OpenAI-compatible `POST /embeddings` endpoint: OpenAI, Ollama, Hugging
 * Face TEI, vLLM, LM Studio. Unreachable endpoints and HTTP errors are `backend_unavailable`;
 * an answer of the wrong shape is `execution_failed`. The key never appears in errors.
 */
export function createOpenAiEmbedder(options: OpenAiEmbedderOptions): Embedder {
  const endpoint = `${options.url.replace(/\/+$/, '')}/embeddings`;
  const batchSize = options.batchSize ?? 64;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;

  async function request(input: readonly string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const timeout = AbortSignal.timeout(options.timeoutMs ?? 30_000);
    const body: Record<string, unknown> = { model: options.model, input };
    if (options.dimensions !== undefined) body.dimensions = options.dimensions;
    let response: Response;
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      throwIfEmbeddingCancelled(signal);
      const reason = timeout.aborted ? 'timed out' : (error as Error).message;
      throw new GatewayError('backend_unavailable', `embeddings endpoint ${endpoint}: ${reason}`, {
        cause: error,
      });
    }
    if (!response.ok) {
      const text = (await response.text().catch(() => '')).slice(0, 300);
      throw new GatewayError(
        'backend_unavailable',
        `embeddings endpoint ${endpoint} answered ${response.status}: ${text}`,
        {
          details: { status: response.status },
        },
      );
    }
    const parsed = (await response.json().catch(() => undefined)) as EmbeddingsResponse | undefined;
    const data = parsed?.data;
    if (!Array.isArray(data) || data.length !== input.length) {
      throw new GatewayError(
        'execution_failed',
        `embeddings endpoint ${endpoint} returned ${Array.isArray(data) ? data.length : 'no'} vectors for ${input.length} texts`,
      );
    }
    const vectors: Float32Array[] = new Array(input.length);
    data.forEach((item, position) => {
      const index = typeof item.index === 'number' ? item.index : position;
      const embedding = item.embedding;
      if (
        !Array.isArray(embedding) ||
        embedding.length === 0 ||
        !embedding.every((v) => typeof v === 'number')
      ) {
        throw new GatewayError(
          'execution_failed',
          `embeddings endpoint ${endpoint} returned a malformed vector`,
        );
      }
      vectors[index] = normalizeVector(Float32Array.from(embedding as number[]));
    });
    if (vectors.some((v) => v === undefined) || new Set(vectors.map((v) => v.length)).size > 1) {
      throw new GatewayError(
        'execution_failed',
        `embeddings endpoint ${endpoint} returned inconsistent vectors`,
      );
    }
    return vectors;
  }

  return {
    model: `openai:${options.model}${options.dimensions ? `:${options.dimensions}` : ''}@${endpoint}`,
    async embed(texts, { signal } = {}) {
      const vectors: Float32Array[] = [];
      for (let start = 0; start < texts.length; start += batchSize) {
        throwIfEmbeddingCancelled(signal);
        vectors.push(...(await request(texts.slice(start, start + batchSize), signal)));
      }
      return vectors;
    },
  };
}
