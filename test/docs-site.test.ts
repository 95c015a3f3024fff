/**
 * Issue 38: the manual is a documentation site (VitePress, docs/) that builds in CI and fails on a broken
 * link or anchor. This builds it as `npm run docs:build` does (scripts/build-docs.mjs, into a folder of its
 * own) and holds the built site to what the issue asks: no broken link, the HTTP API reference rendered
 * from the OpenAPI document with every route, every page of docs/guides and docs/reference in the
 * sidebar, and every page saying what to do next (its "Next" links, or the theme's link to the next page
 * of the sidebar). The link checker itself is shown to catch a missing page
 * and a missing anchor, and the README's links to name files that exist.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildOpenApiDocument } from '../src/host/http/openapi';
import { routes } from '../src/host/http/routes';
import { Output } from '../src/cli/output';
import { buildProgram } from '../src/cli/program';

const repo = join(__dirname, '..');
const run = promisify(execFile);
const docs = join(repo, 'docs');

/** The markdown pages of one folder of the site, by name without `.md`. */
const pagesOf = (folder: string) =>
  readdirSync(join(docs, folder))
    .filter((file) => file.endsWith('.md'))
    .map((file) => file.replace(/\.md$/, ''));

/** Every markdown page of the site, relative to docs/. */
const allPages = readdirSync(docs, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.md') && !file.startsWith('.vitepress'));

describe('the link checker', () => {
  let site: string;
  beforeAll(() => {
    site = mkdtempSync(join(tmpdir(), 'signalbox-links-'));
    mkdirSync(join(site, 'guides'));
    writeFileSync(
      join(site, 'index.html'),
      '<a href="/guides/timers#arming">ok</a><a href="/guides/missing">gone</a><a href="./guides/timers#nowhere">bad anchor</a><a href="https://example.org/x#y">elsewhere</a>',
    );
    writeFileSync(join(site, 'guides', 'timers.html'), '<h2 id="arming">Arming</h2><a href="#arming">here</a><a href="../#top">top</a>');
  });
  afterAll(() => rmSync(site, { recursive: true, force: true }));

  it('names each link to a page that was not built and each anchor a page does not have, and fails', async () => {
    const failure = (await run(process.execPath, [join(repo, 'scripts', 'check-docs-links.mjs'), site]).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    ))!;
    expect(failure.code).toBe(1);
    expect(failure.stderr.trim().split('\n').sort()).toEqual([
      'broken link: guides/timers.html: ../#top (no #top on index.html)',
      'broken link: index.html: ./guides/timers#nowhere (no #nowhere on guides/timers.html)',
      'broken link: index.html: /guides/missing (no such page)',
    ]);
  });
});

describe('the documentation site, built', () => {
  let out: string;
  let built: { stdout: string; stderr: string };
  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'signalbox-docs-'));
    built = await run(process.execPath, [join(repo, 'scripts', 'build-docs.mjs'), out], { cwd: repo, maxBuffer: 16 * 1024 * 1024, timeout: 280_000 });
  }, 300_000);
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('builds with no broken link or anchor', () => {
    expect(built.stdout).toMatch(/^\d+ pages checked, 0 broken links$/m);
    for (const page of allPages) expect({ page, built: existsSync(join(out, page.replace(/\.md$/, '.html'))) }).toEqual({ page, built: true });
  });

  it('renders the HTTP API reference from the OpenAPI document: every route, with its role', () => {
    const reference = readFileSync(join(out, 'reference', 'http-api.html'), 'utf8');
    const document = buildOpenApiDocument(routes) as { paths: Record<string, Record<string, { operationId?: string; 'x-signalbox-role'?: string }>> };
    const operations = Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));
    expect(operations.length).toBeGreaterThan(20);
    for (const { path, method, operation } of operations) {
      const heading = `${method.toUpperCase()} /api${path}`;
      const at = reference.indexOf(`<code>${heading}</code>`);
      expect({ heading, rendered: at >= 0 }).toEqual({ heading, rendered: true });
      const role = operation['x-signalbox-role'];
      if (role && role !== 'public') expect(reference.slice(at, reference.indexOf('<h3', at + 1))).toContain(role);
    }
  });

  it('says on every page what to do next: a "Next" section with links, or the pager\'s link to the next page', () => {
    const deadEnds = allPages.filter((page) => {
      const html = readFileSync(join(out, page.replace(/\.md$/, '.html')), 'utf8');
      const nextSection = html.split(/<h2 id="next"/)[1]?.split(/<h2 /)[0];
      return !/class="[^"]*pager-link next[^"]*" href="[^"]+"/.test(html) && !(nextSection && /<a [^>]*href="[^"#]/.test(nextSection));
    });
    // The decision records are the design's history, read from their folder's index (which leads on).
    expect(deadEnds.filter((page) => !/^decisions\/\d{4}-/.test(page))).toEqual([]);
  });

  it("renders every CLI command's help from the CLI's definition", () => {
    const page = readFileSync(join(out, 'reference', 'cli-commands.html'), 'utf8');
    const commands = buildProgram(new Output({ env: { NO_COLOR: '1' } })).commands.filter((command) => command.name() !== 'help');
    expect(commands.length).toBeGreaterThan(15);
    for (const command of commands) {
      const heading = `signalbox ${command.name()}`;
      expect({ heading, rendered: page.includes(`>${heading}<`) || page.includes(`>${heading} `) }).toEqual({ heading, rendered: true });
      for (const option of command.options) expect({ heading, option: option.flags, rendered: page.includes(option.long ?? option.flags) }).toEqual({ heading, option: option.flags, rendered: true });
    }
  });

  it('lists every page of docs/guides and docs/reference in the sidebar', () => {
    const home = readFileSync(join(out, 'index.html'), 'utf8');
    for (const folder of ['guides', 'reference']) {
      for (const page of pagesOf(folder).filter((name) => name !== 'index')) {
        expect({ page: `${folder}/${page}`, listed: home.includes(`href="/${folder}/${page}"`) }).toEqual({ page: `${folder}/${page}`, listed: true });
      }
    }
  });
});

describe('the README', () => {
  it("the README's relative links name files that exist", () => {
    const readme = readFileSync(join(repo, 'README.md'), 'utf8');
    const links = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((match) => match[1]!).filter((href) => !/^[a-z]+:/i.test(href));
    expect(links.length).toBeGreaterThan(10);
    for (const link of links) expect({ link, exists: existsSync(join(repo, link)) }).toEqual({ link, exists: true });
  });
});
