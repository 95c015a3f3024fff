/**
 * The walkthroughs, run as the reader runs them: the README's five minutes, and the documentation site's
 * walkthrough pages (docs/getting-started: the API with curl, then the command line), each top to bottom:
 * every ```sh block and every `$ ` line of a ```console block, in order, as one bash script (real curl,
 * the real `signalbox` binary) against a fresh local server on Azurite; each output shown is compared
 * with what came back, with ids, dates, ETags and the port left out. So the front door and the manual
 * cannot drift from what the server and the CLI do.
 *
 * What a page shows is checked this way: a ```sh block's output (the plain ``` block right after
 * it) must appear in the real output line by line, in order, other lines (response headers the page
 * leaves out) in between allowed; a ```console block's output must be the real one line for line. In
 * both, `…` stands for any text (a cut body), and a line that is only `…` for any lines. Blocks whose
 * info string says `illustrative` (figures from a larger system, a file the reader does not have) are
 * not run.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startTestHost, type TestHost } from './support/local-host';

const repo = join(__dirname, '..');
const run = promisify(execFile);

/** The documentation site's walkthrough pages, in the order a reader follows them (each page's "Next" leads to the following one). */
export const walkthroughPages = ['docs/getting-started/walkthrough.md', 'docs/getting-started/command-line.md'] as const;

/** The README's walkthrough: the steps of its "Five minutes" section. */
function readmeSteps(): Step[] {
  const readme = readFileSync(join(repo, 'README.md'), 'utf8');
  const start = readme.indexOf('## Five minutes with Signalbox\n');
  const end = readme.indexOf('\n## ', start + 1);
  if (start < 0 || end < start) throw new Error('README.md: the "Five minutes with Signalbox" section is not where this test looks');
  return walkthroughSteps('README.md', readme, start, end);
}

interface Step {
  /** Where it is (file:line), for the failure message. */
  readonly where: string;
  readonly script: string;
  /** The output the page shows, if it shows one. */
  readonly expected?: string;
  /** console: line for line; sh: in order, other lines between allowed. */
  readonly exact: boolean;
}

/** The fenced blocks of a page (`file`'s `text`), or of its part from `start` to `end`, in order, as steps. */
export function walkthroughSteps(file: string, text: string, start = 0, end = text.length): Step[] {
  const section = text.slice(start, end);
  const fences = [...section.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map((match) => ({ info: match[1]!.trim(), body: match[2]!, at: match.index, end: match.index + match[0].length }));
  const lineOf = (offset: number) => text.slice(0, start + offset).split('\n').length;
  const steps: Step[] = [];
  for (let index = 0; index < fences.length; index++) {
    const fence = fences[index]!;
    const [language = '', ...flags] = fence.info.split(/\s+/);
    if (flags.includes('illustrative')) continue;
    const where = `${file}:${lineOf(fence.at)}`;
    if (language === 'sh') {
      const next = fences[index + 1];
      // An output block directly follows its commands (only whitespace between).
      const follows = next && next.info === '' && section.slice(fence.end, next.at).trim() === '';
      steps.push({ where, script: fence.body, exact: false, ...(follows ? { expected: next.body } : {}) });
      if (follows) index++;
    } else if (language === 'console') {
      let current: { command: string; output: string[]; line: number } | undefined;
      const flush = () => current && steps.push({ where: `${file}:${current.line}`, script: current.command, expected: current.output.join('\n'), exact: true });
      fence.body.split('\n').forEach((line, offset) => {
        if (line.startsWith('$ ')) {
          flush();
          current = { command: line.slice(2), output: [], line: lineOf(fence.at) + 1 + offset };
        } else if (current) current.output.push(line);
      });
      flush();
    }
  }
  return steps;
}

/** What may differ from run to run: ETags, dates, generated ids, the port. */
function normalise(text: string): string[] {
  return text
    .replace(/\r/g, '')
    .replace(/W\/\\?"datetime'[^']*'\\?"/g, '<etag>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?Z/g, '<date>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<id>')
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line !== '');
}

function linePattern(line: string): RegExp {
  return new RegExp(
    `^${line
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
}

/** Undefined when `actual` shows what `expected` says; else why not. */
export function mismatch(expected: string, actual: string, exact: boolean): string | undefined {
  const want = normalise(expected);
  const got = normalise(actual);
  let position = 0;
  let skipping = false;
  for (const line of want) {
    if (line === '…') {
      skipping = true;
      continue;
    }
    const pattern = linePattern(line);
    if (exact && !skipping) {
      if (position >= got.length || !pattern.test(got[position]!)) return `expected line ${JSON.stringify(line)}, got ${JSON.stringify(got[position] ?? '(end of output)')}`;
      position++;
      continue;
    }
    const found = got.findIndex((candidate, index) => index >= position && pattern.test(candidate));
    if (found < 0) return `expected a line ${JSON.stringify(line)} after line ${position} of the output`;
    position = found + 1;
    skipping = false;
  }
  if (exact && !skipping && position < got.length) return `unexpected line ${JSON.stringify(got[position])}`;
  return undefined;
}

const MARK = '@@readme-step';

describe('mismatch (the comparison itself can fail)', () => {
  it('holds each shown line to the real one, with … as a wildcard', () => {
    expect(mismatch('HTTP/1.1 201 Created\n{"id":"a",…}', 'HTTP/1.1 201 Created\ndate: x\n{"id":"a","v":1}', false)).toBeUndefined();
    expect(mismatch('HTTP/1.1 201 Created', 'HTTP/1.1 200 OK', false)).toBeDefined();
    expect(mismatch('a\nb', 'a\nx\nb', true)).toBeDefined();
    expect(mismatch('a\n…\nb', 'a\nx\ny\nb', true)).toBeUndefined();
    expect(mismatch('a', 'a\nb', true)).toBeDefined();
    expect(mismatch(`etag: W/"datetime'2026-11-23T17%3A19%3A50.1534438Z'"`, `etag: W/"datetime'2030-01-01T00%3A00%3A00.0000000Z'"`, true)).toBeUndefined();
  });
});

/** Runs the steps as one script on a fresh server; the problems found, one per step that showed something else. */
async function runWalkthrough(test: TestHost, steps: readonly Step[]): Promise<string[]> {
  // One script, as a reader's terminal is one shell: variables set by one block are there for the next.
  const script = ['set -u', `cd ${JSON.stringify(repo)}`, ...steps.flatMap((step, index) => [`printf "\\n${MARK} ${index}\\n"`, `{\n${step.script}\n} 2>&1`]), `printf "\\n${MARK} end\\n"`].join('\n');
  const { stdout } = await run('bash', ['-c', script], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SIGNALBOX_URL: `${test.host.url}/api`, NO_COLOR: '1' },
    maxBuffer: 16 * 1024 * 1024,
    timeout: 240_000,
  });
  const outputs = stdout.split(new RegExp(`^${MARK} `, 'm')).slice(1);
  expect(outputs.at(-1)?.trim()).toBe('end');
  const problems: string[] = [];
  steps.forEach((step, index) => {
    const output = outputs[index]!.replace(/^\d+\n/, '');
    if (step.expected === undefined) return;
    const why = mismatch(step.expected, output, step.exact);
    if (why) problems.push(`${step.where}: ${step.script.trim().split('\n')[0]}\n  ${why}\n  --- real output ---\n${output}`);
  });
  return problems;
}

describe("the README's five minutes, top to bottom on a fresh server", () => {
  let test: TestHost;
  beforeAll(async () => {
    test = await startTestHost('readme');
  });
  afterAll(async () => {
    await test?.host.stop();
  });

  it('runs every block in order and shows what the README shows', async () => {
    const steps = readmeSteps();
    expect(steps.filter((step) => !step.exact && step.expected !== undefined).length).toBeGreaterThanOrEqual(4);
    expect(await runWalkthrough(test, steps)).toEqual([]);
  }, 300_000);
});

describe("the documentation site's walkthrough pages, top to bottom on a fresh server", () => {
  let test: TestHost;
  beforeAll(async () => {
    test = await startTestHost('walkthrough');
  });
  afterAll(async () => {
    await test?.host.stop();
  });

  it('leads from one walkthrough page to the next', () => {
    walkthroughPages.slice(0, -1).forEach((file, index) => {
      const next = walkthroughPages[index + 1]!.split('/').at(-1)!;
      const nextSection = readFileSync(join(repo, file), 'utf8').split(/^## Next$/m)[1] ?? '';
      expect({ file, next: nextSection.includes(`(./${next})`) }).toEqual({ file, next: true });
    });
  });

  it('runs every block of every page in order and shows what the pages show', async () => {
    const steps = walkthroughPages.flatMap((file) => walkthroughSteps(file, readFileSync(join(repo, file), 'utf8')));
    expect(steps.length).toBeGreaterThan(15);
    expect(steps.filter((step) => !step.exact && step.expected !== undefined).length).toBeGreaterThanOrEqual(7);
    expect(await runWalkthrough(test, steps)).toEqual([]);
  }, 300_000);
});
