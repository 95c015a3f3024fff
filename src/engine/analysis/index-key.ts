/**
 * @module The warning about sensitive indexes on a host without an index key (SIGNALBOX_INDEX_HMAC_KEY):
 * their values are left unindexed (search-values.ts) and a search naming one is refused (query-plan.ts).
 * Like the outbound-host warnings this depends on the host's configuration, so it runs where the key is
 * known (PUT and POST of a workflow); the definition is stored all the same: the key may come later.
 */
import type { WorkflowDefinition } from '../definition/definition';
import { formatPath } from '../model/validation';
import { INDEX_KEY_SETTING } from '../definition/search-indexes';
import { WarningCode, type DefinitionWarning } from './analyze-definition';

/** One warning per sensitive index when the host has no key; none when it has one. */
export function indexKeyWarnings(definition: WorkflowDefinition, host: { readonly indexKeyConfigured: boolean }): DefinitionWarning[] {
  if (host.indexKeyConfigured) return [];
  return (definition.indexes ?? []).flatMap((index, position) =>
    index.sensitive
      ? [
          {
            path: formatPath(['indexes', position]),
            code: WarningCode.sensitiveIndexUnkeyed,
            message: `index "${index.name}" is sensitive and this deployment has no index key (${INDEX_KEY_SETTING}): it stays unindexed and a search on it is refused (400) until the key is set`,
          },
        ]
      : [],
  );
}
