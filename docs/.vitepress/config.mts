/**
 * The Signalbox documentation site (VitePress): `npm run docs` serves it, `npm run docs:build` builds it
 * into docs/.vitepress/dist and then checks every link and anchor of the built pages
 * (scripts/check-docs-links.mjs). VitePress itself fails the build on a link to a page that does not exist.
 *
 * The Guides, Reference and Decisions groups of the sidebar are the folders' listings, read when the site
 * is built, so a page added there appears without editing this file; the order below puts the pages a
 * reader needs first, and any other page follows in title order.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type DefaultTheme } from 'vitepress';

/** The HTML elements a page may write inline; any other `<word>` in running text is a placeholder, shown as written. */
const htmlElements = new Set('a abbr b br code del details dfn em i img ins kbd mark q s samp small span strong sub summary sup time u var wbr div p ul ol li table tr td th'.split(' '));

const docs = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const repo = resolve(docs, '..');

/** A page's title: its first `# ` heading, without inline code marks. */
function titleOf(file: string): string {
  const heading = /^# (.+)$/m.exec(readFileSync(file, 'utf8'));
  return heading ? heading[1]!.replace(/`/g, '').trim() : file;
}

/** Every markdown page of a folder (an index.md first), the preferred ones in their order, the rest by title. */
function folder(name: string, preferred: readonly string[] = []): DefaultTheme.SidebarItem[] {
  const pages = readdirSync(join(docs, name))
    .filter((file) => file.endsWith('.md') && file !== 'index.md')
    .map((file) => ({ file, text: titleOf(join(docs, name, file)), link: `/${name}/${file.replace(/\.md$/, '')}` }));
  const rank = (file: string) => {
    const at = preferred.indexOf(file.replace(/\.md$/, ''));
    return at < 0 ? preferred.length : at;
  };
  pages.sort((a, b) => rank(a.file) - rank(b.file) || a.text.localeCompare(b.text));
  const items = pages.map(({ text, link }) => ({ text, link }));
  return existsSync(join(docs, name, 'index.md')) ? [{ text: titleOf(join(docs, name, 'index.md')), link: `/${name}/` }, ...items] : items;
}

const guides = folder('guides', [
  'installing',
  'timers',
  'automatic-transitions',
  'events',
  'children',
  'migration',
  'changing-live-workflows',
  'identity',
  'tenants',
  'flow-control',
  'search',
  'operating',
  'retrying-faults',
  'explaining-workflows',
  'outbound-calls',
  'errors',
  'web-console',
  'plain-http-clients',
  'typed-client',
  'library',
  'deploying-to-azure',
  'scaling-out',
  'cost',
]);
const reference = folder('reference', ['http-api', 'definition-schema', 'cli', 'cli-commands', 'settings', 'limits']);

export default defineConfig({
  title: 'Signalbox',
  description: 'A state-machine workflow engine for Azure Durable Functions: triggers, leases, Table Storage.',
  cleanUrls: true,
  lastUpdated: false,
  themeConfig: {
    nav: [
      { text: 'Getting started', link: '/getting-started/' },
      { text: 'Guides', link: guides[0]?.link ?? '/guides/' },
      { text: 'Reference', link: reference[0]?.link ?? '/reference/' },
    ],
    search: { provider: 'local' },
    outline: [2, 3],
    sidebar: [
      {
        text: 'Getting started',
        items: [
          { text: 'Install and run', link: '/getting-started/' },
          { text: 'A walk through the API with curl', link: '/getting-started/walkthrough' },
          { text: 'The command line', link: '/getting-started/command-line' },
        ],
      },
      {
        text: 'Concepts',
        items: [
          { text: 'Workflows', link: '/concepts/workflows' },
          { text: 'Triggers', link: '/concepts/triggers' },
          { text: 'Subjects and interests', link: '/concepts/subjects-and-interests' },
          { text: 'Instances', link: '/concepts/instances' },
          { text: 'Operations', link: '/concepts/operations' },
          { text: 'Guarantees', link: '/concepts/guarantees' },
        ],
      },
      { text: 'Guides', items: guides },
      { text: 'Reference', items: reference },
      {
        text: 'Inside Signalbox',
        items: [
          { text: 'Performance', link: '/performance' },
          { text: 'Architecture', link: '/architecture' },
          { text: 'Developing Signalbox', link: '/development' },
        ],
      },
      { text: 'Decisions', collapsed: true, items: folder('decisions') },
    ],
  },
  markdown: {
    config(md) {
      // `{{ ... }}` is a JSONata template in Signalbox, not a Vue interpolation: in inline code and in text.
      const inline = md.renderer.rules.code_inline!;
      md.renderer.rules.code_inline = (tokens, index, options, env, self) => inline(tokens, index, options, env, self).replace(/^<code/, '<code v-pre');
      const text = md.renderer.rules.text!;
      md.renderer.rules.text = (tokens, index, options, env, self) => text(tokens, index, options, env, self).replace(/\{\{/g, '&#123;&#123;').replace(/\}\}/g, '&#125;&#125;');
      // Markdown here writes placeholders such as <instanceId> or <seconds> in running text: anything that
      // looks like a tag but is no HTML element is text, not markup (Vue would read it as an unclosed element).
      md.core.ruler.push('placeholders-are-text', (state) => {
        for (const block of state.tokens) {
          for (const token of block.children ?? []) {
            const name = /^<\/?([A-Za-z][\w-]*)/.exec(token.content)?.[1];
            if (token.type === 'html_inline' && name && !htmlElements.has(name.toLowerCase())) token.type = 'text';
          }
        }
      });
      // A relative link to a file of the repository outside docs/ (src/..., examples/...) has no page on the
      // site: it is shown as that path, and a link to a file that does not exist fails the build.
      md.core.ruler.push('repository-links', (state) => {
        const page = (state.env as { realPath?: string; path?: string }).realPath ?? (state.env as { path?: string }).path;
        if (!page) return;
        for (const block of state.tokens) {
          const children = block.children ?? [];
          for (let index = 0; index < children.length; index++) {
            const token = children[index]!;
            if (token.type !== 'link_open') continue;
            const href = token.attrGet('href') ?? '';
            if (/^[a-z]+:|^#|^\//i.test(href)) continue;
            const target = resolve(dirname(page), decodeURI(href.split('#')[0]!));
            if (!relative(docs, target).startsWith('..')) continue;
            if (!existsSync(target)) throw new Error(`${relative(repo, page)}: the link ${href} names ${relative(repo, target)}, which does not exist`);
            const close = children.findIndex((candidate, at) => at > index && candidate.type === 'link_close');
            token.type = 'html_inline';
            token.content = `<span class="repository-file" title="${relative(repo, target)} in the repository">`;
            children[close]!.type = 'html_inline';
            children[close]!.content = '</span>';
          }
        }
      });
    },
  },
});
