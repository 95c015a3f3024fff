/**
 * Checks every link of the built documentation site (docs/.vitepress/dist, or the folder given): each
 * link within the site must name a page or file that was built and, when it has a `#fragment`, an element
 * of that page with that id. VitePress fails its build on a link to a missing page but does not look at
 * anchors; this does both, offline, over the HTML the reader gets. Prints each broken link and exits 1.
 *
 *   node scripts/check-docs-links.mjs [dist folder]
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** Every .html file under a folder. */
function htmlFiles(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return htmlFiles(path);
    return entry.name.endsWith('.html') ? [path] : [];
  });
}

const decode = (text) =>
  text
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');

/** The built file a site path names (clean URLs: /guides/timers is guides/timers.html), if any. */
function fileFor(dist, path) {
  const plain = decodeURIComponent(path).replace(/^\/+/, '');
  const candidates = plain === '' || plain.endsWith('/') ? [join(plain, 'index.html')] : [plain, `${plain}.html`, join(plain, 'index.html')];
  return candidates.map((candidate) => join(dist, candidate)).find((file) => existsSync(file) && statSync(file).isFile());
}

/** The ids of one page's elements. */
function idsOf(html) {
  return new Set([...html.matchAll(/\sid="([^"]*)"/g)].map((match) => decode(match[1])));
}

/** Each broken link of the site in `dist`, as "page: href (why)". */
export function brokenLinks(dist) {
  const root = resolve(dist);
  const pages = htmlFiles(root);
  const ids = new Map();
  const idsFor = (file) => {
    if (!ids.has(file)) ids.set(file, idsOf(readFileSync(file, 'utf8')));
    return ids.get(file);
  };
  const problems = [];
  for (const page of pages) {
    const html = readFileSync(page, 'utf8');
    const here = `/${relative(root, page).replace(/\\/g, '/')}`;
    for (const match of html.matchAll(/<a\s[^>]*?href="([^"]*)"/g)) {
      const href = decode(match[1]);
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue; // another site, mailto:, ...
      const url = new URL(href, `https://site${here}`);
      const target = url.pathname === here || href.startsWith('#') ? page : fileFor(root, url.pathname);
      if (!target) {
        problems.push(`${relative(root, page)}: ${href} (no such page)`);
        continue;
      }
      const fragment = decodeURIComponent(url.hash.slice(1));
      if (fragment && target.endsWith('.html') && !idsFor(target).has(fragment)) problems.push(`${relative(root, page)}: ${href} (no #${fragment} on ${relative(root, target)})`);
    }
  }
  return { pages: pages.length, problems };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dist = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'docs', '.vitepress', 'dist');
  const { pages, problems } = brokenLinks(dist);
  if (pages === 0) {
    console.error(`no pages under ${dist}: build the site first (npm run docs:build)`);
    process.exit(1);
  }
  for (const problem of problems) console.error(`broken link: ${problem}`);
  console.log(`${pages} pages checked, ${problems.length} broken links`);
  process.exit(problems.length > 0 ? 1 : 0);
}
