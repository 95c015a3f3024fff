/**
 * Issue 24, "Done when": the console's items have "a screenshot in the README" (since issue 38, in the
 * documentation site's "Web console" guide, docs/guides/web-console.md). Every image a page of the README
 * or the site shows is a file in the repository (the browser tests write them to test/browser/screenshots,
 * from which they are copied to docs/images), and the pages the issue names are among them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const repo = join(__dirname, '..');
/** The README and every markdown page of the documentation site. */
const pages = [
  'README.md',
  ...readdirSync(join(repo, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md') && !file.includes('node_modules'))
    .map((file) => join('docs', file)),
];
const images = pages.flatMap((page) =>
  [...readFileSync(join(repo, page), 'utf8').matchAll(/!\[([^\]]*)\]\(([^)\s]+)\)/g)].map((match) => ({ page, alt: match[1]!, file: relative(repo, join(repo, dirname(page), match[2]!)) })),
);

it('shows only images that exist, each with a description', () => {
  expect(images.length).toBeGreaterThan(0);
  for (const image of images) {
    expect({ ...image, exists: existsSync(join(repo, image.file)) }).toEqual({ ...image, exists: true });
    expect(image.alt.length).toBeGreaterThan(20);
  }
});

it("shows the console's workflow page, a bulk action's dry-run count and the operations list", () => {
  expect(images.filter((image) => image.page === 'docs/guides/web-console.md').map((image) => image.file)).toEqual(
    expect.arrayContaining(['docs/images/console-workflow.png', 'docs/images/console-bulk-dry-run.png', 'docs/images/console-operations.png']),
  );
});
