/**
 * @module JSON as a collapsible tree: objects and arrays are <details> elements (keyboard-operable by
 * the browser), leaves are shown inline. Deep levels start closed.
 */
function Leaf({ value }: { value: unknown }) {
  const kind = value === null ? 'null' : typeof value;
  return <span class={`json-${kind}`}>{JSON.stringify(value)}</span>;
}

function Node({ name, value, depth }: { name: string; value: unknown; depth: number }) {
  if (value === null || typeof value !== 'object') {
    return (
      <li>
        <span class="json-key">{name}</span>: <Leaf value={value} />
      </li>
    );
  }
  const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item] as const) : Object.entries(value);
  const summary = Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
  return (
    <li>
      <details open={depth < 1}>
        <summary>
          <span class="json-key">{name}</span> <span class="json-count">{summary}</span>
        </summary>
        <ul class="json-tree">
          {entries.map(([key, item]) => (
            <Node key={key} name={key} value={item} depth={depth + 1} />
          ))}
        </ul>
      </details>
    </li>
  );
}

export function JsonView({ value, label }: { value: unknown; label: string }) {
  return (
    <details class="json-view" open>
      <summary>{label}</summary>
      {value !== null && typeof value === 'object' && Object.keys(value).length === 0 ? (
        <p class="muted">Empty.</p>
      ) : (
        <ul class="json-tree json-root">
          {value !== null && typeof value === 'object' ? (
            Object.entries(value).map(([key, item]) => <Node key={key} name={key} value={item} depth={0} />)
          ) : (
            <li>
              <Leaf value={value} />
            </li>
          )}
        </ul>
      )}
    </details>
  );
}
