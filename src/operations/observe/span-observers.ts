import {
  type Attributes,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import type { GatewayErrorCode } from '../../foundation/model/error-codes.js';
import type { DownstreamCallObserver, SearchObserver } from '../../foundation/ports/operation-observer.js';
import type { CallObserver } from './call-observer.js';

/** The three span sources of the gateway, over one tracer. */
export interface SpanObservers {
  /** `tool.exec.{namespace}.{name}` per call through the pipeline. */
  calls: CallObserver;
  /** `tool.search` per search. */
  search: SearchObserver;
  /** `mcp.call {server}` per `tools/call` to a downstream server, nested under its `tool.exec` span. */
  downstream: DownstreamCallObserver;
}

/**
 * Spans for tool calls, searches and downstream calls on `tracer`.
 *
 * Nesting is explicit rather than through OpenTelemetry's context manager: the `tool.exec` span of
 * each call in flight is kept by call id, and a downstream call names the call it serves
 * (`DownstreamCallStart.callId`). On Node 20 the async-hooks context manager enables promise
 * hooks for the whole process, a cost every promise would pay; a map lookup costs nothing of the
 * kind. Calls start under `context.active()`, so an application that embeds the gateway and runs
 * its own context manager still gets them inside its traces.
 */
export function spanObservers(tracer: Tracer): SpanObservers {
  const open = new Map<string, Span>();
  return {
    calls: {
      start({ tool, ctx }) {
        const attributes: Attributes = {
          'tool.id': tool.id,
          'tool.namespace': tool.namespace,
          'tool.name': tool.name,
          'tool.tags': tool.tags,
          'tool.call_id': ctx.callId,
          'caller.identity': ctx.caller.identity,
          // The source that serves the tool (`mcp:github`…): which backend a slow span points at.
          'tool.source': tool.origin.sourceId,
        };
        if (tool.metadata.category !== undefined) attributes['tool.category'] = tool.metadata.category;
        if (ctx.caller.surface !== undefined) attributes['aperture.surface'] = ctx.caller.surface;
        if (ctx.caller.authMethod !== undefined) attributes['caller.auth_method'] = ctx.caller.authMethod;
        if (tool.version !== undefined) attributes['tool.version'] = tool.version;
        if (ctx.caller.toolset !== undefined) attributes['caller.toolset'] = ctx.caller.toolset;
        if (ctx.caller.sessionId !== undefined) attributes['caller.session_id'] = ctx.caller.sessionId;
        const span = tracer.startSpan(
          `tool.exec.${tool.namespace}.${tool.name}`,
          { kind: SpanKind.INTERNAL, attributes },
          context.active(),
        );
        open.set(ctx.callId, span);
        return (outcome) => {
          open.delete(ctx.callId);
          if (outcome.error) fail(span, outcome.error.code);
          span.end();
        };
      },
    },
    search: {
      start(info) {
        const span = tracer.startSpan(
          'tool.search',
          {
            kind: SpanKind.INTERNAL,
            attributes: {
              'search.query.length': info.queryLength,
              'search.strategy': info.strategy,
              'search.limit': info.limit,
              'search.offset': info.offset,
            },
          },
          context.active(),
        );
        return (end) => {
          span.setAttribute('search.result.count', end.results);
          if (end.errorCode) fail(span, end.errorCode);
          span.end();
        };
      },
    },
    downstream: {
      start(info) {
        const parent = open.get(info.callId);
        const span = tracer.startSpan(
          `mcp.call ${info.server}`,
          {
            kind: SpanKind.CLIENT,
            attributes: {
              'mcp.server.name': info.server,
              'mcp.method.name': 'tools/call',
              'gen_ai.tool.name': info.tool,
              'tool.call_id': info.callId,
            },
          },
          parent ? trace.setSpan(context.active(), parent) : context.active(),
        );
        return (end) => {
          if (end.errorCode) fail(span, end.errorCode);
          span.end();
        };
      },
    },
  };
}

/**
 * Marks a span failed with its code. The message is the code too, not the error's text: a
 * backend's message may echo the arguments, and traces leave the process.
 */
function fail(span: Span, code: GatewayErrorCode): void {
  span.setAttribute('error.type', code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: code });
}
