/**
 * Telemetry without Application Insights: nothing starts without a connection string, and spans go to
 * whatever OpenTelemetry provider is registered (a recording one here), named `<Component>.<method>`.
 */
import { trace, type Span, type SpanOptions, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { startTelemetry, withSpan } from '../../functions/telemetry';

interface Recorded {
  name: string;
  attributes: SpanOptions['attributes'];
  ended: boolean;
  exceptions: unknown[];
  status?: { code: number; message?: string };
}

const recorded: Recorded[] = [];
const recordingTracer: Tracer = {
  startSpan: (name, options) => recordingSpan(name, options),
  startActiveSpan: ((name: string, options: SpanOptions, fn: (span: Span) => unknown) => fn(recordingSpan(name, options))) as Tracer['startActiveSpan'],
};
function recordingSpan(name: string, options: SpanOptions = {}): Span {
  const record: Recorded = { name, attributes: options.attributes, ended: false, exceptions: [] };
  recorded.push(record);
  const span = trace.wrapSpanContext({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 });
  return Object.assign(span, {
    end: () => void (record.ended = true),
    recordException: (exception: unknown) => void record.exceptions.push(exception),
    setStatus: (status: { code: number; message?: string }) => ((record.status = status), span),
  });
}

afterAll(() => trace.disable());

describe('telemetry', () => {
  it('does not start Azure Monitor without a connection string', () => {
    expect(startTelemetry({})).toBeUndefined();
    expect(startTelemetry({ APPLICATIONINSIGHTS_CONNECTION_STRING: '  ' })).toBeUndefined();
  });

  // Before any provider is registered (the order of these tests matters).
  it('runs work with a no-op tracer when nothing is registered', async () => {
    await expect(withSpan('Http.health', {}, async () => 'ok')).resolves.toBe('ok');
    expect(recorded).toEqual([]);
    const provider: TracerProvider = { getTracer: () => recordingTracer };
    trace.setGlobalTracerProvider(provider);
  });

  it('runs work in a span with the operation and instance ids', async () => {
    await expect(withSpan('OperationActivities.applyTrigger', { operationId: 'op-1', instanceId: 'i-1' }, async () => 42)).resolves.toBe(42);
    expect(recorded.at(-1)).toMatchObject({ name: 'OperationActivities.applyTrigger', attributes: { operationId: 'op-1', instanceId: 'i-1' }, ended: true });
  });

  it('records a failure on the span and rethrows it', async () => {
    const failure = new Error('lease unavailable');
    await expect(withSpan('OperationActivities.applyTrigger', { operationId: 'op-1' }, async () => Promise.reject(failure))).rejects.toBe(failure);
    expect(recorded.at(-1)).toMatchObject({ attributes: { operationId: 'op-1' }, ended: true, exceptions: [failure], status: { code: 2, message: 'lease unavailable' } });
  });
});
