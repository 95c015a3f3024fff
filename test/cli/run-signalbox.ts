/**
 * Runs the real `signalbox` binary (bin/signalbox.js, as `npx signalbox` does) as a child process with
 * stdout and stderr piped, so neither is a terminal; or under a pseudo-terminal with util-linux `script`.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const repoRoot = join(__dirname, '..', '..');
export const binPath = join(repoRoot, 'bin', 'signalbox.js');

export interface CliRun {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment a child gets: no SIGNALBOX_* or colour settings from the test's own environment. */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^SIGNALBOX_|^NO_COLOR$|^FORCE_COLOR$/.test(key)) env[key] = value;
  }
  return { ...env, ...extra };
}

function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutInMs: number): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} did not finish within ${timeoutInMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutInMs);
    child.on('error', reject);
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      resolve({ exitCode, stdout, stderr });
    });
  });
}

/** `signalbox <args>` with stdout and stderr piped. */
export function signalbox(args: readonly string[], options: { env?: Record<string, string>; timeoutInMs?: number } = {}): Promise<CliRun> {
  return run(process.execPath, [binPath, ...args], cleanEnv(options.env), options.timeoutInMs ?? 120_000);
}

function shellQuote(argument: string): string {
  return `'${argument.replace(/'/g, `'\\''`)}'`;
}

/**
 * `signalbox <args>` on a pseudo-terminal (`script -qfec`): everything the terminal received, escape
 * codes included, arrives on stdout; `script -e` exits with the command's exit code.
 */
export function signalboxOnTerminal(args: readonly string[], options: { env?: Record<string, string>; timeoutInMs?: number } = {}): Promise<CliRun> {
  const command = [process.execPath, binPath, ...args].map(shellQuote).join(' ');
  return run('script', ['-qfec', command, '/dev/null'], cleanEnv({ TERM: 'xterm-256color', COLUMNS: '120', ...options.env }), options.timeoutInMs ?? 120_000);
}
