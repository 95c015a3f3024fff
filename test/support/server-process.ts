/**
 * The local server (src/host/local/main.ts) as a child process, for the tests that kill it (SIGKILL) and start
 * it again. `node --import tsx` runs it in one process, so SIGKILL really kills it (the tsx CLI would leave
 * its child running). Resolves once it says where it listens; rejects if it exits first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export function startServerProcess(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const main = path.join(__dirname, '..', '..', 'src', 'host', 'local', 'main.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', main], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/[^\s/]+)/.exec(output)?.[1];
      if (url) resolve({ child, url });
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}
