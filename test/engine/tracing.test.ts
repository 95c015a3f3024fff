/**
 * The engine's spans (`Engine.<method>`) go to whatever OpenTelemetry provider the host registers: here
 * a recording one. Without a provider they are no-ops (every other engine test runs that way).
 */
import { trace, type Span, type SpanOptions, type Tracer } from '@opentelemetry/api';
import { testEngine } from './support';

interface Recorded {
  readonly name: string;
  readonly attributes: Record<string, unknown>;
  ended: boolean;
}
const recorded: Recorded[] = [];

function recordingSpan(name: string, options: SpanOptions = {}): Span {
  const record: Recorded = { name, attributes: { ...options.attributes }, ended: false };
  recorded.push(record);
  const span = trace.wrapSpanContext({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 });
  return Object.assign(span, {
    end: () => void (record.ended = true),
    setAttribute: (key: string, value: unknown) => ((record.attributes[key] = value), span),
    setAttributes: (values: Record<string, unknown>) => (Object.assign(record.attributes, values), span),
    recordException: () => {},
    setStatus: () => span,
  });
}

const recordingTracer: Tracer = {
  startSpan: (name, options) => recordingSpan(name, options),
  startActiveSpan: ((name: string, options: SpanOptions, fn: (span: Span) => unknown) => fn(recordingSpan(name, options))) as Tracer['startActiveSpan'],
};

beforeAll(() => trace.setGlobalTracerProvider({ getTracer: () => recordingTracer }));
afterAll(() => trace.disable());

it('traces instance creation, trigger application (with its outcome), recovery and cancellation', async () => {
  const { engine } = testEngine();
  await engine.createWorkflow({
    id: 'w',
    displayName: 'W',
    initialStateId: 'a',
    states: { a: { transitions: [{ id: 'go', targetStateId: 'a', conditions: [{ type: 'triggerName', name: 'Go' }], actions: [{ type: 'setContext', expressions: { x: '$error("no")' } }] }] } },
  });
  await engine.createInstance({ workflowId: 'w', instanceId: 'i1' });
  await engine.applyTrigger('i1', { id: 't1', name: 'Go', subjects: ['i1'] });
  await engine.recover('i1', 'a');
  await engine.cancel('i1');
  expect(recorded.map(({ name, attributes, ended }) => ({ name, attributes, ended }))).toEqual([
    { name: 'Engine.createInstance', attributes: { instanceId: 'i1', workflowId: 'w', status: 'waiting' }, ended: true },
    { name: 'Engine.applyTrigger', attributes: { instanceId: 'i1', triggerId: 't1', outcome: 'faulted' }, ended: true },
    { name: 'Engine.recover', attributes: { instanceId: 'i1', stateId: 'a' }, ended: true },
    { name: 'Engine.cancel', attributes: { instanceId: 'i1' }, ended: true },
  ]);
});
