/**
 * Issue 24, group 6 ("keys off"): on Azure the API takes function keys, and turning them off is not a
 * setting. The deployment guide (docs/guides/deploying-to-azure.md) says which routes need no key; this keeps that list equal to the routes declared
 * `anonymous` (src/host/http/routes.ts), so it cannot claim a route is protected that is not.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { routes } from '../src/host/http/routes';

const guide = readFileSync(join(__dirname, '..', 'docs', 'guides', 'deploying-to-azure.md'), 'utf8');

it('names every route that needs no function key, and only those', () => {
  const start = guide.indexOf('\n## Call the deployed API\n');
  const end = guide.indexOf('\n## Tear down\n');
  expect(start).toBeGreaterThan(0);
  expect(end).toBeGreaterThan(start);
  const section = guide.slice(start, end);
  const sentence = section.split('\n\n').find((paragraph) => paragraph.includes('need no key'));
  expect(sentence).toBeDefined();
  const named = [...sentence!.matchAll(/`GET \/api\/([^`]+)`/g)].map((match) => match[1]).sort();
  const anonymous = routes
    .filter((route) => route.authLevel === 'anonymous')
    .map((route) => route.route)
    .sort();
  expect(named).toEqual(anonymous);
});
