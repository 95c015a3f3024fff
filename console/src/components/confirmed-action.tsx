/**
 * @module A button whose action runs only after an inline confirmation (no browser dialog). Focus moves
 * to the safe choice when the question appears and back to the button when it is dismissed, so keyboard
 * users never land on <body>.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { asProblem } from '../api/api-error';
import type { ClientProblem } from '../../../src/client';
import { ProblemAlert } from './problem-alert';

export interface ConfirmedActionProps {
  /** The first button, e.g. "Cancel instance…". */
  label: string;
  /** The question, e.g. "Cancel claim-1? It takes no more triggers." */
  question: ComponentChildren;
  /** The group's accessible name, e.g. "Confirm cancel". */
  confirmLabel: string;
  yesLabel: string;
  noLabel: string;
  /** `danger` for what cannot be undone. */
  tone?: 'danger' | 'secondary';
  /** What failed, shown above the problem+json. */
  failureContext: string;
  run: () => Promise<unknown>;
  onDone: () => void;
}

export function ConfirmedAction({ label, question, confirmLabel, yesLabel, noLabel, tone, failureContext, run, onDone }: ConfirmedActionProps) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<ClientProblem>();
  const openButton = useRef<HTMLButtonElement>(null);
  const safeButton = useRef<HTMLButtonElement>(null);
  const returnFocus = useRef(false);
  useEffect(() => {
    if (confirming) safeButton.current?.focus();
    else if (returnFocus.current) openButton.current?.focus();
    returnFocus.current = false;
  }, [confirming]);
  return (
    <div class="confirmed-action">
      {!confirming ? (
        <button ref={openButton} type="button" class={tone} onClick={() => (setProblem(undefined), setConfirming(true))}>
          {label}
        </button>
      ) : (
        <div role="group" aria-label={confirmLabel} class="confirm">
          <span>{question}</span>{' '}
          <button
            type="button"
            class={tone === 'danger' ? 'danger' : undefined}
            disabled={busy}
            onClick={async () => {
              setProblem(undefined);
              setBusy(true);
              try {
                await run();
                setConfirming(false);
                onDone();
              } catch (error) {
                setProblem(asProblem(error));
              } finally {
                setBusy(false);
              }
            }}
          >
            {yesLabel}
          </button>{' '}
          <button ref={safeButton} type="button" class="secondary" onClick={() => ((returnFocus.current = true), setConfirming(false))}>
            {noLabel}
          </button>
        </div>
      )}
      {problem && <ProblemAlert problem={problem} context={failureContext} />}
    </div>
  );
}
