/** The console's hash routes: parsed from and written to the URL fragment, both ways. */
import { formatHash, parseHash, type ConsoleRoute } from '../../console/src/lib/hash-route';

const routes: ConsoleRoute[] = [
  { page: 'workflows' },
  { page: 'workflow', workflowId: 'expense-claim' },
  { page: 'workflow', workflowId: 'expense claim/2', version: 3 },
  { page: 'instances', filter: {} },
  { page: 'instances', filter: { workflowId: 'w', stateId: 'open', status: 'faulted', subject: 'claimant:ann' } },
  { page: 'instances', filter: { parentId: 'order 7' } },
  { page: 'instances', filter: { workflowId: 'w' }, sort: { key: 'updatedAt', descending: true } },
  { page: 'instances', filter: {}, sort: { key: 'id', descending: false } },
  { page: 'instances', filter: { workflowId: 'w' }, search: "amount > 1000 and region = 'north & south'", sort: { key: 'id', descending: false } },
  { page: 'instance', instanceId: 'claim 42' },
  { page: 'operation', operationId: 'op-1' },
];

it.each(routes)('round-trips %j', (route) => {
  expect(parseHash(formatHash(route))).toEqual(route);
});

it.each([
  ['', { page: 'workflows' }],
  ['#/', { page: 'workflows' }],
  ['#/workflows/w?version=abc', { page: 'workflow', workflowId: 'w' }],
  ['#/workflows/w?version=0', { page: 'workflow', workflowId: 'w' }],
  ['#/instances?status=sleeping&workflowId=w', { page: 'instances', filter: { workflowId: 'w' } }],
  ['#/instances?sort=-colour', { page: 'instances', filter: {} }],
  // A filter expression searches one workflow: without one it is dropped.
  ['#/instances?filter=amount%20%3E%201', { page: 'instances', filter: {} }],
  ['#/instances/a/b', { page: 'notFound', path: '/instances/a/b' }],
  ['#/elsewhere', { page: 'notFound', path: '/elsewhere' }],
])('reads %s leniently', (hash, route) => {
  expect(parseHash(hash)).toEqual(route);
});
