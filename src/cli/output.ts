/**
 * @module Where a command's output goes and how it looks. Colours and progress bars only when stdout is a
 * terminal (and NO_COLOR is not set): piped into a file, another program or a CI log, the output is plain
 * text. Tables are borderless columns (as kubectl prints them), easy to read and to `grep`/`awk`.
 *
 * Everything printed is data, never control codes (see terminal-text.ts): each line is escaped as it is
 * written. The CLI's own colours and line breaks survive that because they are not characters in the
 * text but marks with a per-process random nonce, turned into escape codes only when the line is
 * written; a server's answer or a file cannot forge a mark, so it cannot reach the terminal as a code.
 */
import { randomBytes } from 'node:crypto';
import Table from 'cli-table3';
import { escapeControlCharacters, escapeControlCharactersKeepingLayout, jsonForTerminal } from './terminal-text';

/** The styles the CLI uses; each wraps text in marks (or returns it as it is when colours are off). */
export interface Colors {
  readonly bold: (text: string) => string;
  readonly dim: (text: string) => string;
  readonly red: (text: string) => string;
  readonly green: (text: string) => string;
  readonly yellow: (text: string) => string;
  readonly cyan: (text: string) => string;
}

// SGR parameters: [open, close].
const STYLES: Record<keyof Colors, readonly [number, number]> = { bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39], cyan: [36, 39] };

export interface OutputOptions {
  readonly stdout?: NodeJS.WriteStream;
  readonly stderr?: NodeJS.WriteStream;
  readonly env?: NodeJS.ProcessEnv;
}

export interface TableOptions {
  /** Spaces before every line. @default 0 */
  readonly indent?: number;
}

export class Output {
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  /** stdout is a terminal: colours and progress bars are allowed. */
  readonly interactive: boolean;
  /** Colours for stdout (a no-op set when not interactive). */
  readonly colors: Colors;
  /** Colours for stderr: also only when stdout is a terminal, and stderr is one too. */
  readonly errorColors: Colors;
  /** Marks the CLI's own styles and line breaks in text: NUL, the nonce, what it stands for, NUL. */
  private readonly nonce = randomBytes(12).toString('hex');
  private readonly marks = new RegExp(`\\u0000${this.nonce}(nl|[\\d;]+)\\u0000`);

  constructor(options: OutputOptions = {}) {
    this.stdout = options.stdout ?? process.stdout;
    this.stderr = options.stderr ?? process.stderr;
    const env = options.env ?? process.env;
    this.interactive = this.stdout.isTTY === true && env.TERM !== 'dumb';
    const colorsWanted = this.interactive && !env.NO_COLOR;
    this.colors = this.createColors(colorsWanted);
    this.errorColors = this.createColors(colorsWanted && this.stderr.isTTY === true);
  }

  /** Writes lines to stdout, each escaped (a line break inside a value shows as `\u000a`). */
  print(...lines: string[]): void {
    for (const line of lines) this.stdout.write(`${this.render(line)}\n`);
  }

  /** Writes lines to stderr (notes and errors, never data), escaped as `print` does. */
  note(...lines: string[]): void {
    for (const line of lines) this.stderr.write(`${this.render(line)}\n`);
  }

  /** Machine-readable output: one JSON document on stdout, with no raw control character in it. */
  printJson(value: unknown): void {
    this.stdout.write(`${jsonForTerminal(value)}\n`);
  }

  /** A document of several lines (a Mermaid diagram): its line feeds and tabs stay, other controls are escaped. */
  printDocument(text: string): void {
    const escaped = escapeControlCharactersKeepingLayout(text);
    this.stdout.write(escaped.endsWith('\n') ? escaped : `${escaped}\n`);
  }

  /** Text the CLI wrote itself, for a stream written directly (commander's help, a progress bar's format). */
  layout(text: string): string {
    return this.render(text, escapeControlCharactersKeepingLayout);
  }

  /** A borderless table: a header row and aligned columns. Cells that are undefined print as empty. */
  table(head: readonly string[], rows: readonly (readonly (string | number | undefined | null)[])[], options: TableOptions = {}): string {
    const table = new Table({
      // Cells are escaped (and styled) before the columns are measured, so that they line up as printed.
      head: head.map((title) => this.render(this.colors.bold(title))),
      chars: {
        top: '',
        'top-mid': '',
        'top-left': '',
        'top-right': '',
        bottom: '',
        'bottom-mid': '',
        'bottom-left': '',
        'bottom-right': '',
        left: '',
        'left-mid': '',
        mid: '',
        'mid-mid': '',
        right: '',
        'right-mid': '',
        middle: '  ',
      },
      style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
    });
    for (const row of rows) table.push(row.map((cell) => (cell === undefined || cell === null ? '' : this.render(String(cell)))));
    // cli-table3 pads the last column too; trailing blanks are noise in files and diffs. Every escape
    // code left is one of the CLI's styles (the cells' own are escaped): back to marks, for `print`.
    const indent = ' '.repeat(options.indent ?? 0);
    return table
      .toString()
      .split('\n')
      .map((line) => `${indent}${line.trimEnd()}`.replace(/\u001b\[([\d;]*)m/g, (_sgr, code: string) => this.mark(code)))
      .join(this.mark('nl'));
  }

  /** `key  value` lines with the keys aligned. */
  details(entries: readonly (readonly [string, string | number | undefined])[]): string {
    const present = entries.filter(([, value]) => value !== undefined && value !== '');
    const width = Math.max(...present.map(([key]) => key.length));
    return present.map(([key, value]) => `${this.colors.bold(key.padEnd(width))}  ${value}`).join(this.mark('nl'));
  }

  private mark(meaning: string): string {
    return `\u0000${this.nonce}${meaning}\u0000`;
  }

  private createColors(enabled: boolean): Colors {
    const style =
      ([open, close]: readonly [number, number]) =>
      (text: string) =>
        enabled ? `${this.mark(String(open))}${text}${this.mark(String(close))}` : text;
    return Object.fromEntries(Object.entries(STYLES).map(([name, codes]) => [name, style(codes)])) as unknown as Colors;
  }

  /** Escapes the text between marks; the marks become the CLI's escape codes and line breaks. */
  private render(text: string, escape: (text: string) => string = escapeControlCharacters): string {
    // split with a capturing group: text, mark, text, mark, ..., text.
    return text
      .split(this.marks)
      .map((part, index) => (index % 2 === 0 ? escape(part) : part === 'nl' ? '\n' : `\u001b[${part}m`))
      .join('');
  }
}
