/** @module A problem+json answer shown as an alert: title, detail, and every invalid field by its path. */
import type { ClientProblem } from '../../../src/client';

export function ProblemAlert({ problem, context }: { problem: ClientProblem; context?: string }) {
  return (
    <div class="problem" role="alert">
      <p class="problem-title">
        {context ? `${context}: ` : ''}
        {problem.title}
        {problem.status ? ` (${problem.status})` : ''}
      </p>
      {problem.detail && <p class="problem-detail">{problem.detail}</p>}
      {problem.errors && problem.errors.length > 0 && (
        <ul class="problem-errors">
          {problem.errors.map((error) => (
            <li key={`${error.path}:${error.message}`}>
              <code>{error.path || '(body)'}</code>: {error.message}
            </li>
          ))}
        </ul>
      )}
      {problem.status === 401 && <p class="problem-hint">Enter the API key (the function key) at the top of the page.</p>}
    </div>
  );
}
