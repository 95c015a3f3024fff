/**
 * Issue 24, "Done when": the console's items have "a screenshot in the README". Every image the README
 * shows is a file in the repository (the browser tests write them to test/browser/screenshots, from
 * which they are copied to docs/images), and the pages the issue names are among them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const repo = join(__dirname, '..');
const readme = readFileSync(join(repo, 'README.md'), 'utf8');
const images = [...readme.matchAll(/!\[([^\]]*)\]\(([^)\s]+)\)/g)].map((match) => ({ alt: match[1]!, file: match[2]! }));

it('shows only images that exist, each with a description', () => {
  expect(images.length).toBeGreaterThan(0);
  for (const image of images) {
    expect(existsSync(join(repo, image.file))).toBe(true);
    expect(image.alt.length).toBeGreaterThan(20);
  }
});

it("shows the console's workflow page, a bulk action's dry-run count and the operations list", () => {
  expect(images.map((image) => image.file)).toEqual(expect.arrayContaining(['docs/images/console-workflow.png', 'docs/images/console-bulk-dry-run.png', 'docs/images/console-operations.png']));
});
