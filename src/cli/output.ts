/**
 * @module Where a command's output goes and how it looks. Colours and progress bars only when stdout is a
 * terminal (and NO_COLOR is not set): piped into a file, another program or a CI log, the output is plain
 * text. Tables are borderless columns (as kubectl prints them), easy to read and to `grep`/`awk`.
 */
import Table from 'cli-table3';
import picocolors from 'picocolors';

export type Colors = ReturnType<typeof picocolors.createColors>;

export interface OutputOptions {
  readonly stdout?: NodeJS.WriteStream;
  readonly stderr?: NodeJS.WriteStream;
  readonly env?: NodeJS.ProcessEnv;
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

  constructor(options: OutputOptions = {}) {
    this.stdout = options.stdout ?? process.stdout;
    this.stderr = options.stderr ?? process.stderr;
    const env = options.env ?? process.env;
    this.interactive = this.stdout.isTTY === true && env.TERM !== 'dumb';
    const colorsWanted = this.interactive && !env.NO_COLOR;
    this.colors = picocolors.createColors(colorsWanted);
    this.errorColors = picocolors.createColors(colorsWanted && this.stderr.isTTY === true);
  }

  /** Writes lines to stdout. */
  print(...lines: string[]): void {
    for (const line of lines) this.stdout.write(`${line}\n`);
  }

  /** Writes lines to stderr (notes and errors, never data). */
  note(...lines: string[]): void {
    for (const line of lines) this.stderr.write(`${line}\n`);
  }

  /** Machine-readable output: one JSON document on stdout. */
  printJson(value: unknown): void {
    this.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** A borderless table: a header row and aligned columns. Cells that are undefined print as empty. */
  table(head: readonly string[], rows: readonly (readonly (string | number | undefined | null)[])[]): string {
    const table = new Table({
      head: head.map((title) => this.colors.bold(title)),
      chars: { top: '', 'top-mid': '', 'top-left': '', 'top-right': '', bottom: '', 'bottom-mid': '', 'bottom-left': '', 'bottom-right': '', left: '', 'left-mid': '', mid: '', 'mid-mid': '', right: '', 'right-mid': '', middle: '  ' },
      style: { head: [], border: [], 'padding-left': 0, 'padding-right': 0 },
    });
    for (const row of rows) table.push(row.map((cell) => (cell === undefined || cell === null ? '' : String(cell))));
    // cli-table3 pads the last column too; trailing blanks are noise in files and diffs.
    return table.toString().split('\n').map((line) => line.trimEnd()).join('\n');
  }

  /** `key  value` lines with the keys aligned. */
  details(entries: readonly (readonly [string, string | number | undefined])[]): string {
    const present = entries.filter(([, value]) => value !== undefined && value !== '');
    const width = Math.max(...present.map(([key]) => key.length));
    return present.map(([key, value]) => `${this.colors.bold(key.padEnd(width))}  ${value}`).join('\n');
  }
}
