/** @module The header's search: an instance id goes straight to that instance's page (which says so when none has it). */
import { useState } from 'preact/hooks';
import { navigate } from './link';

export function InstanceSearch() {
  const [instanceId, setInstanceId] = useState('');
  return (
    <form
      role="search"
      aria-label="Go to an instance"
      class="instance-search"
      onSubmit={(event) => {
        event.preventDefault();
        // Ids are exact; only the spaces a paste brings along are dropped.
        const id = instanceId.trim();
        if (id) navigate({ page: 'instance', instanceId: id });
      }}
    >
      <label for="instance-search">Instance id</label>
      <input id="instance-search" type="search" value={instanceId} placeholder="e.g. claim-42" onInput={(event) => setInstanceId(event.currentTarget.value)} />
      <button type="submit" class="secondary">
        Go
      </button>
    </form>
  );
}
