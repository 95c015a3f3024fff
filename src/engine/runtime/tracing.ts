/**
 * @module Signalbox's one tracer, on @opentelemetry/api: a no-op until a host registers a provider
 * (the Functions app does, through Application Insights). Spans are named `<Component>.<method>`.
 */
import { SpanStatusCode, trace, type Attributes, type Span } from '@opentelemetry/api';

export const tracer = trace.getTracer('signalbox');

/** Runs `work` in an active span; a failure is recorded on the span and rethrown. */
export function withSpan<T>(name: string, attributes: Attributes, work: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error instanceof Error ? error : String(error));
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}
