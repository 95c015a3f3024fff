/**
 * `npx tsx bench/profile-summary.ts <file.cpuprofile>...`: a `node --cpu-prof` profile's self time by
 * category (Node's HTTP and stream internals, other Node internals, the Azure SDK, Signalbox's own code,
 * other packages, native and garbage collection, idle), and the top functions by self time. Used for
 * docs/performance.md with BENCH_PROFILE_DIR of `bench:workload` (the server process's profile).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

function categoryOf({ functionName, url }: ProfileNode['callFrame']): string {
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (!url) return 'native (V8, libuv, crypto, JSON, socket writes)';
  if (/node:(_http|http|https|net|stream|internal\/(http|streams|stream_base|net))/.test(url) || url.includes('internal/deps/undici')) return 'Node HTTP, net and streams';
  if (url.startsWith('node:')) return 'other Node internals';
  if (url.includes('node_modules/@azure/') || url.includes('node_modules/@typespec/')) return 'Azure SDK';
  if (url.includes('/node_modules/')) return 'other packages (zod, jsonata, tsx, ...)';
  if (url.includes('/src/')) return 'Signalbox (src/)';
  return 'other';
}

for (const file of process.argv.slice(2)) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const byCategory = new Map<string, number>();
  const byFunction = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, index) => {
    const node = byId.get(id);
    if (!node) return;
    const micros = profile.timeDeltas[index] ?? 0;
    const category = categoryOf(node.callFrame);
    byCategory.set(category, (byCategory.get(category) ?? 0) + micros);
    if (category === 'idle') return;
    total += micros;
    const where = `${node.callFrame.functionName || '(anonymous)'} ${node.callFrame.url.replace(/^.*\/(node_modules|src)\//, '$1/')}:${node.callFrame.lineNumber + 1}`;
    byFunction.set(where, (byFunction.get(where) ?? 0) + micros);
  });
  console.log(`${file}: ${(total / 1000).toFixed(0)} ms busy`);
  console.table(
    [...byCategory]
      .filter(([category]) => category !== 'idle')
      .sort((a, b) => b[1] - a[1])
      .map(([category, micros]) => ({ category, ms: (micros / 1000).toFixed(0), share: `${((100 * micros) / total).toFixed(1)}%` })),
  );
  console.table(
    [...byFunction]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([where, micros]) => ({ function: where, share: `${((100 * micros) / total).toFixed(1)}%` })),
  );
}
