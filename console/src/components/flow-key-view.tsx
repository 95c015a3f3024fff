/**
 * @module One key of a workflow's flow control (`GET /flow/{workflowId}/keys/{key}`). Under `flow.concurrency`:
 * what runs, what waits in admission order, when a slot frees at the latest, the limit in force with its
 * override and the audit of overrides; an admin sets or clears the override here (`PUT .../limit`, the server
 * checks the role). Per state with `capacity`: the instances counted in it under the key and the triggers
 * waiting for room, in admission order, with their deadlines. There is no route listing a workflow's keys,
 * so a key is entered; those looked at are offered again.
 */
import { useState } from 'preact/hooks';
import { useApi } from '../api-context';
import { asProblem } from '../api/api-error';
import type { ClientProblem, Workflow } from '../../../src/client';
import type { FlowKey } from '../api/console-api';
import { relativeTime } from '../lib/relative-time';
import { useAsync } from '../lib/use-async';
import { useNow } from '../lib/use-now';
import { Link } from './link';
import { ProblemAlert } from './problem-alert';
import { TimeText } from './time-text';

/** Keys offered again in the picker, newest first. */
const MAX_KEYS_REMEMBERED = 10;

/** The key expressions of the workflow's flow control: its concurrency policy's, then each state's `capacity` key. */
export function flowKeyExpressions(definition: Pick<Workflow, 'flow' | 'states'>): string[] {
  const keys = [definition.flow?.concurrency?.key, ...Object.values(definition.states).map((state) => state.capacity?.key)];
  return [...new Set(keys.filter((key): key is string => key !== undefined))];
}

export function FlowKeyView({ workflowId, keyExpressions }: { workflowId: string; keyExpressions: readonly string[] }) {
  const [keyText, setKeyText] = useState('');
  const [shownKey, setShownKey] = useState<string>();
  const [seenKeys, setSeenKeys] = useState<string[]>([]);
  return (
    <section aria-labelledby="flow-key-title" data-testid="flow-key-view">
      <h2 id="flow-key-title">Flow control per key</h2>
      <p class="muted">
        Keyed by {keyExpressions.flatMap((expression, index) => [index > 0 ? ', ' : '', <code key={expression}>{expression}</code>])}: enter a key to see what runs, what waits and the limit in force.
      </p>
      <form
        class="inline-form"
        aria-label="Show a flow key"
        onSubmit={(event) => {
          event.preventDefault();
          const key = keyText.trim();
          if (!key) return;
          setShownKey(key);
          setSeenKeys((keys) => [key, ...keys.filter((seen) => seen !== key)].slice(0, MAX_KEYS_REMEMBERED));
        }}
      >
        <label for="flow-key-input">Key</label>
        <input id="flow-key-input" list="flow-keys-seen" value={keyText} spellcheck={false} placeholder="customer:42" onInput={(event) => setKeyText(event.currentTarget.value)} />
        <datalist id="flow-keys-seen">
          {seenKeys.map((key) => (
            <option key={key} value={key} />
          ))}
        </datalist>
        <button type="submit">Show key</button>
      </form>
      {shownKey !== undefined && <FlowKeyDetail key={shownKey} workflowId={workflowId} flowKey={shownKey} />}
    </section>
  );
}

function limitText(view: FlowKey): string {
  if (view.limit === null) return 'no concurrency policy';
  return view.override ? `limit ${view.limit} (overridden; the definition says ${view.definedLimit ?? 'none'})` : `limit ${view.limit} (the definition's)`;
}

function FlowKeyDetail({ workflowId, flowKey }: { workflowId: string; flowKey: string }) {
  const api = useApi();
  const now = useNow();
  const [generation, setGeneration] = useState(0);
  const view = useAsync(() => api.getFlowKey(workflowId, flowKey), [api, workflowId, flowKey, generation]);
  const data = view.data;
  return (
    <div data-testid="flow-key-detail" data-key={flowKey}>
      {view.problem && <ProblemAlert problem={view.problem} context={`Reading key ${flowKey} failed`} />}
      {data && (
        <>
          <p data-testid="flow-key-summary">
            <strong>
              {data.running.length}
              {data.limit !== null ? `/${data.limit}` : ''} running, {data.queued.length} queued
            </strong>{' '}
            on key <code>{data.key}</code>; {limitText(data)}.{' '}
            <button type="button" class="secondary" onClick={() => setGeneration((value) => value + 1)}>
              Refresh
            </button>
          </p>
          <p data-testid="flow-key-next-release">
            Next release:{' '}
            {data.nextRelease === null ? (
              <span class="muted">nothing waits</span>
            ) : (
              <>
                {relativeTime(data.nextRelease, now) ?? data.nextRelease} at the latest (<TimeText value={data.nextRelease} />)
              </>
            )}
          </p>
          <h3>Running</h3>
          {data.running.length === 0 ? (
            <p class="muted">Nothing holds a slot of this key.</p>
          ) : (
            <table data-testid="flow-key-running">
              <caption class="visually-hidden">Applications holding a slot of key {data.key}</caption>
              <thead>
                <tr>
                  <th scope="col">Instance</th>
                  <th scope="col">Trigger</th>
                  <th scope="col">Since</th>
                </tr>
              </thead>
              <tbody>
                {data.running.map((holder) => (
                  <tr key={`${holder.instanceId}\u0000${holder.triggerId}`}>
                    <td>
                      <Link to={{ page: 'instance', instanceId: holder.instanceId }}>{holder.instanceId}</Link>
                    </td>
                    <td>
                      <code>{holder.triggerId}</code>
                    </td>
                    <td>
                      <TimeText value={holder.since} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <h3>Queued, in admission order</h3>
          {data.queued.length === 0 ? (
            <p class="muted">No trigger waits for a slot of this key.</p>
          ) : (
            <ol data-testid="flow-key-queued">
              {data.queued.map((waiter) => (
                <li key={`${waiter.instanceId}\u0000${waiter.triggerId}`}>
                  <Link to={{ page: 'instance', instanceId: waiter.instanceId }}>{waiter.instanceId}</Link> trigger <code>{waiter.triggerId}</code>, priority {waiter.priority}, since{' '}
                  <TimeText value={waiter.arrivedAt} />
                </li>
              ))}
            </ol>
          )}
          {data.capacity.map((state) => (
            <StateCapacityOfKey key={state.stateId} flowKey={data.key} state={state} />
          ))}
          {data.limit !== null && <LimitForm workflowId={workflowId} view={data} onDone={() => setGeneration((value) => value + 1)} />}
          <h3>Limit changes</h3>
          {data.audit.length === 0 ? (
            <p class="muted">The limit of this key was never overridden.</p>
          ) : (
            <table data-testid="flow-key-audit">
              <caption class="visually-hidden">Overrides of the limit of key {data.key}, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">By</th>
                  <th scope="col">Old</th>
                  <th scope="col">New</th>
                </tr>
              </thead>
              <tbody>
                {data.audit.map((entry, index) => (
                  <tr key={`${entry.at}\u0000${index}`}>
                    <td>
                      <TimeText value={entry.at} />
                    </td>
                    <td>{entry.by}</td>
                    <td class="number">{entry.old ?? '–'}</td>
                    <td class="number">{entry.new ?? "removed (the definition's)"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </div>
  );
}

/** One state with `capacity` under the key: who is counted in it, who waits for room (admission order) and until when. */
function StateCapacityOfKey({ flowKey, state }: { flowKey: string; state: FlowKey['capacity'][number] }) {
  return (
    <div data-testid="flow-key-capacity" data-state={state.stateId}>
      <h3>
        State <code>{state.stateId}</code>: {state.members.length}/{state.limit} in it, {state.queued.length} waiting for room
      </h3>
      {state.members.length === 0 ? (
        <p class="muted">No instance of key {flowKey} is counted in this state.</p>
      ) : (
        <ul data-testid="flow-key-capacity-members">
          {state.members.map((member) => (
            <li key={member.instanceId}>
              <Link to={{ page: 'instance', instanceId: member.instanceId }}>{member.instanceId}</Link> since <TimeText value={member.since} />
            </li>
          ))}
        </ul>
      )}
      {state.queued.length === 0 ? (
        <p class="muted">No trigger waits for room in this state.</p>
      ) : (
        <ol data-testid="flow-key-capacity-queued" aria-label={`Waiting for room in ${state.stateId}, in admission order`}>
          {state.queued.map((waiter) => (
            <li key={`${waiter.instanceId}\u0000${waiter.triggerId}`}>
              <Link to={{ page: 'instance', instanceId: waiter.instanceId }}>{waiter.instanceId}</Link> trigger <code>{waiter.triggerId}</code>, priority {waiter.priority}, since{' '}
              <TimeText value={waiter.arrivedAt} />, waits until <TimeText value={waiter.deadline} />
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

function LimitForm({ workflowId, view, onDone }: { workflowId: string; view: FlowKey; onDone: () => void }) {
  const api = useApi();
  const [limitText, setLimitText] = useState('');
  const [problem, setProblem] = useState<ClientProblem>();
  const [busy, setBusy] = useState(false);
  const change = async (limit: number | null) => {
    setBusy(true);
    setProblem(undefined);
    try {
      await api.setFlowKeyLimit(workflowId, view.key, limit);
      setLimitText('');
      onDone();
    } catch (error) {
      setProblem(asProblem(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      class="inline-form"
      aria-label="Override the limit of this key"
      onSubmit={(event) => {
        event.preventDefault();
        // The range is the server's to check (it names the field); only a whole number is sent.
        if (!/^\d+$/.test(limitText.trim())) {
          setProblem({ title: 'The limit is a whole number', status: 400, detail: `"${limitText}" is not a whole number of slots.` });
          return;
        }
        void change(Number(limitText.trim()));
      }}
    >
      <label for="flow-key-limit">New limit for this key</label>
      <input id="flow-key-limit" inputMode="numeric" value={limitText} onInput={(event) => setLimitText(event.currentTarget.value)} />
      <button type="submit" disabled={busy}>
        Set limit
      </button>
      {view.override && (
        <button type="button" class="secondary" disabled={busy} onClick={() => void change(null)}>
          Remove override
        </button>
      )}
      <p class="note">Takes effect at once on every host, without a deploy (Admin only); each change is audited below.</p>
      {problem && <ProblemAlert problem={problem} context="Changing the limit failed" />}
    </form>
  );
}
