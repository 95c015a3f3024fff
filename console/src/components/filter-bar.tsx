/**
 * @module The instance list's filter bar: a filter expression in the query language (README, "Finding
 * instances") over one workflow's search fields, the field names completed from the workflow's
 * indexes (built-in and declared) as they are typed, and a refused filter shown at its position.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ClientProblem, Workflow } from '../../../src/client';

export interface SearchFieldInfo {
  readonly name: string;
  readonly type: string;
  readonly sensitive?: boolean;
  readonly builtIn?: boolean;
}

/** The fields every workflow is searched by (src/engine/definition/search-indexes.ts). */
const BUILT_IN_FIELDS: readonly SearchFieldInfo[] = [
  { name: 'stateId', type: 'string', builtIn: true },
  { name: 'status', type: 'string', builtIn: true },
  { name: 'businessKey', type: 'string', builtIn: true },
  { name: 'createdAt', type: 'datetime', builtIn: true },
  { name: 'updatedAt', type: 'datetime', builtIn: true },
  { name: 'parentId', type: 'string', builtIn: true },
  { name: 'workflowId', type: 'string', builtIn: true },
];

/** The built-in fields, then the ones the workflow (its latest version, as the API asks) declares. */
export function searchFieldsOf(workflow: Workflow | undefined): SearchFieldInfo[] {
  const declared = (workflow?.indexes ?? []).map((index) => ({ name: index.name, type: index.type, ...(index.sensitive ? { sensitive: true } : {}) }));
  return [...BUILT_IN_FIELDS, ...declared];
}

/** Where a refused filter went wrong (1-based), from the problem's `filter: position N: ...`. */
export function filterProblemOf(problem: ClientProblem | undefined): { position: number; message: string } | undefined {
  if (!problem || problem.status !== 400) return undefined;
  const texts = [...(problem.errors ?? []).filter((error) => error.path === 'filter').map((error) => `filter: ${error.message}`), problem.detail ?? ''];
  for (const text of texts) {
    const match = /^filter: position (\d+): (.*)$/s.exec(text);
    if (match) return { position: Number(match[1]), message: match[2]! };
  }
  return undefined;
}

/** The word being typed at the caret (letters, digits, `_`), unless the caret is inside a quoted string. */
function wordAt(text: string, caret: number): { start: number; word: string } | undefined {
  const before = text.slice(0, caret);
  if ((before.match(/'/g)?.length ?? 0) % 2 === 1) return undefined;
  const match = /[A-Za-z_][A-Za-z0-9_]*$/.exec(before);
  if (match) return { start: caret - match[0].length, word: match[0] };
  // At the start, or after `(`, `and`, `or`, `not`: a field comes next.
  return /(^|\(|\b(and|or|not)\s)\s*$/i.test(before) ? { start: caret, word: '' } : undefined;
}

const KEYWORDS = new Set(['and', 'or', 'not', 'in', 'between', 'startswith', 'true', 'false']);

export function FilterBar({ fields, value, problem, onApply }: { fields: readonly SearchFieldInfo[]; value: string; problem?: ClientProblem; onApply: (search: string) => void }) {
  const [draft, setDraft] = useState(value);
  const [caret, setCaret] = useState(value.length);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => setDraft(value), [value]);
  const refused = filterProblemOf(problem);
  // The caret goes to where the filter went wrong.
  useEffect(() => {
    if (!refused || !input.current) return;
    input.current.focus();
    input.current.setSelectionRange(refused.position - 1, refused.position - 1);
  }, [refused?.position, refused?.message]);

  const at = wordAt(draft, caret);
  const lower = at?.word.toLowerCase() ?? '';
  const suggestions = at && !KEYWORDS.has(lower) ? fields.filter((field) => field.name.toLowerCase().startsWith(lower) && field.name !== at.word) : [];
  const showing = open && suggestions.length > 0;
  const chosen = Math.min(active, suggestions.length - 1);

  const complete = (field: SearchFieldInfo) => {
    if (!at) return;
    const next = `${draft.slice(0, at.start)}${field.name} ${draft.slice(caret).replace(/^[A-Za-z0-9_]*\s?/, '')}`;
    const position = at.start + field.name.length + 1;
    setDraft(next);
    setCaret(position);
    setOpen(false);
    requestAnimationFrame(() => {
      input.current?.focus();
      input.current?.setSelectionRange(position, position);
    });
  };
  const track = (element: HTMLInputElement) => {
    setCaret(element.selectionStart ?? element.value.length);
    setOpen(true);
    setActive(0);
  };

  return (
    <form
      class="filter-bar"
      role="search"
      aria-label="Filter by the workflow's fields"
      onSubmit={(event) => {
        event.preventDefault();
        setOpen(false);
        onApply(draft.trim());
      }}
    >
      <div class="field filter-field">
        <label for="filter-expression">Filter</label>
        <div class="combobox">
          <input
            id="filter-expression"
            ref={input}
            type="text"
            role="combobox"
            spellcheck={false}
            autocomplete="off"
            aria-autocomplete="list"
            aria-expanded={showing}
            aria-controls="filter-fields"
            aria-describedby={refused ? 'filter-error' : 'filter-help'}
            aria-invalid={refused ? true : undefined}
            {...(showing ? { 'aria-activedescendant': `filter-field-${suggestions[chosen]!.name}` } : {})}
            value={draft}
            placeholder="amount > 1000 and stateId = 'review'"
            onInput={(event) => {
              setDraft(event.currentTarget.value);
              track(event.currentTarget);
            }}
            onClick={(event) => track(event.currentTarget)}
            onKeyUp={(event) => {
              if (event.key === 'ArrowLeft' || event.key === 'ArrowRight' || event.key === 'Home' || event.key === 'End') setCaret(event.currentTarget.selectionStart ?? 0);
            }}
            onBlur={() => setTimeout(() => setOpen(false), 150)}
            onKeyDown={(event) => {
              if (!showing) return;
              if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
                event.preventDefault();
                const step = event.key === 'ArrowDown' ? 1 : -1;
                setActive((chosen + step + suggestions.length) % suggestions.length);
              } else if (event.key === 'Enter' || event.key === 'Tab') {
                event.preventDefault();
                complete(suggestions[chosen]!);
              } else if (event.key === 'Escape') {
                setOpen(false);
              }
            }}
          />
          <ul id="filter-fields" role="listbox" aria-label="Fields" class="suggestions" hidden={!showing}>
            {showing &&
              suggestions.map((field, index) => (
                <li
                  key={field.name}
                  id={`filter-field-${field.name}`}
                  role="option"
                  aria-selected={index === chosen}
                  onMouseDown={(event) => {
                    event.preventDefault();
                    complete(field);
                  }}
                >
                  <span class="field-name">{field.name}</span> <span class="field-type">{field.sensitive ? `${field.type}, sensitive: = != in` : field.type}</span>
                </li>
              ))}
          </ul>
        </div>
        {refused ? (
          <div id="filter-error" class="filter-error" role="alert" data-testid="filter-error">
            <span>
              Position {refused.position}: {refused.message}
            </span>
            <pre aria-hidden="true">
              {value}
              {'\n'}
              {' '.repeat(Math.max(refused.position - 1, 0))}^
            </pre>
          </div>
        ) : (
          <p id="filter-help" class="note">
            Fields: {fields.map((field) => field.name).join(', ')}. Compare with = != &lt; &lt;= &gt; &gt;=, between, in, startsWith; combine with and, or, not.
          </p>
        )}
      </div>
      <div class="field field-actions">
        <button type="submit">Search</button>
        {value && (
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setDraft('');
              onApply('');
            }}
          >
            Clear filter
          </button>
        )}
      </div>
    </form>
  );
}
