/**
 * @module The API key field in the header. The key is kept for this tab only (sessionStorage) and sent
 * as `x-functions-key`, as every other client of the API does.
 */
import { useState } from 'preact/hooks';

export function KeyForm({ apiKey, onChange }: { apiKey: string | undefined; onChange: (key: string | undefined) => void }) {
  const [draft, setDraft] = useState('');
  if (apiKey) {
    return (
      <div class="key-form">
        <span class="key-status">API key set for this tab</span>
        <button type="button" class="secondary" onClick={() => onChange(undefined)}>
          Forget key
        </button>
      </div>
    );
  }
  return (
    <form
      class="key-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (draft.trim()) onChange(draft.trim());
        setDraft('');
      }}
    >
      <label for="api-key">API key</label>
      <input id="api-key" type="password" autocomplete="off" value={draft} onInput={(event) => setDraft(event.currentTarget.value)} placeholder="x-functions-key" />
      <button type="submit">Use key</button>
    </form>
  );
}
