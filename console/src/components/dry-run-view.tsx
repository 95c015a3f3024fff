/**
 * @module What a trigger would do to one instance, from `?dryRun=true`: the outcome, the transition, the
 * decision trace, the actions it would run with their rendered inputs, the triggers it would raise, the
 * lifecycle events it would publish and the context afterwards. Nothing of it happened.
 */
import type { DryRunInstance } from '../../../src/client';
import { JsonView } from './json-view';
import { StatusBadge } from './status-badge';
import { TraceView } from './trace-view';

function describeAction(action: NonNullable<DryRunInstance['actions']>[number]): string {
  if (action.request) return `${action.request.method} ${action.request.url}`;
  if (action.log) return `${action.log.level}: ${action.log.message}`;
  if (action.trigger) return `raise ${action.trigger.name} to ${action.trigger.subjects.join(', ')}`;
  return '';
}

export function DryRunView({ result, truncated }: { result: DryRunInstance; truncated?: boolean }) {
  const actions = result.actions ?? [];
  const raised = result.raisedTriggers ?? [];
  const events = result.events ?? [];
  return (
    <section class="dry-run" aria-labelledby="dry-run-title" data-testid="dry-run">
      <h4 id="dry-run-title">
        Dry run: <StatusBadge status={result.outcome} />
      </h4>
      <p>
        {result.transitionId ? (
          <>
            Would take <strong>{result.transitionId}</strong>
            {result.fromStateId ? ` from ${result.fromStateId}` : ''} to <strong>{result.toStateId}</strong>.
          </>
        ) : (
          <>No transition would be taken.</>
        )}{' '}
        Nothing was saved, called or raised.
      </p>
      {result.error && (
        <p class="problem-detail" data-testid="dry-run-error">
          {result.error}
        </p>
      )}
      <h5>Trace</h5>
      <TraceView trace={result.trace} />
      <h5>Actions it would run</h5>
      {actions.length === 0 ? (
        <p class="muted">None.</p>
      ) : (
        <ol class="dry-run-actions">
          {actions.map((action, index) => (
            <li key={`${index}:${action.step}`}>
              <code>{action.step}</code>
              {/* A step names its type already, e.g. `action of transition "update" [0] (setContext)`. */}
              {!action.step.includes(`(${action.type})`) && <span class="muted"> {action.type}</span>} {describeAction(action)}
            </li>
          ))}
        </ol>
      )}
      {raised.length > 0 && (
        <>
          <h5>Triggers it would raise</h5>
          <ul>
            {raised.map((trigger, index) => (
              <li key={index}>
                <strong>{trigger.name}</strong> to{' '}
                {trigger.subjects.map((subject) => (
                  <code key={subject}>{subject} </code>
                ))}
              </li>
            ))}
          </ul>
        </>
      )}
      {events.length > 0 && (
        <>
          <h5>Lifecycle events it would publish</h5>
          <ul>
            {events.map((event, index) => (
              <li key={index}>
                <strong>{event.type}</strong> <span class="muted">to {event.subscriptionIds.join(', ')}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      {result.contextAfter && <JsonView value={result.contextAfter} label="Context after" />}
      {truncated && <p class="note">Only the first 100 candidates were decided.</p>}
    </section>
  );
}
