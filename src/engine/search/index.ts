/** @module Finding instances by business data: declared indexes, the search rows, the filter language, the planner. */
export * from '../definition/search-indexes';
export { encodeNumber, encodeValue, MAX_ENCODED_STRING_BYTES, type IndexValue } from './encoding';
export type { ClaimVerdict, KeyClaim, SearchIndexStore, SearchIndexWrite, SearchRange, SearchRow } from './search-port';
export { searchValuesOf, entriesOf, type SearchValues } from './search-values';
export { MAX_FILTER_CONDITIONS, MAX_FILTER_DEPTH, MAX_FILTER_LENGTH, MAX_IN_VALUES, parseFilter, type FilterNode } from './query-language';
export { checkFilter, planSearch, matchesFilter, type IndexPlan } from './query-plan';
export { MAX_ORDERED_MATCHES, MAX_SEARCH_PAGE_SIZE, type CountRequest, type CountResult, type SearchExplanation, type SearchPage, type SearchRequest } from './instance-search';
