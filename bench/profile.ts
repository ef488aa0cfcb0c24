import { readFileSync } from 'node:fs';

/**
 * Reads a V8 .cpuprofile (node --cpu-prof) and says where the time went: by function (self),
 * by package or source area (self), and by our own functions including what they call.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const cwd = process.cwd();

function shortUrl(url: string): string {
  return url.replace(/^file:\/\//, '').replace(`${cwd}/`, '');
}

/**
 * Function name and place. tsx compiles our TypeScript without line breaks (its source maps do not
 * reach a CPU profile), so for our files the line is meaningless: named functions show the file,
 * anonymous ones the column that tells them apart.
 */
function frameKey(node: ProfileNode): string {
  const { functionName, url, lineNumber, columnNumber } = node.callFrame;
  if (!url) return functionName || '(anonymous)';
  const file = shortUrl(url);
  if (/\.ts$/.test(file) && lineNumber === 0) return functionName ? `${functionName} ${file}` : `(anonymous) ${file}:1:${columnNumber + 1}`;
  return `${functionName || '(anonymous)'} ${file}:${lineNumber + 1}`;
}

/** The package or area a frame belongs to. */
function areaOf(node: ProfileNode): string {
  const url = shortUrl(node.callFrame.url);
  if (!url) return node.callFrame.functionName.startsWith('(') ? node.callFrame.functionName : '(native / V8 builtins)';
  if (url.startsWith('node:')) {
    // node:internal/streams/readable -> node:internal/streams; node:_http_server stays whole.
    const segments = url.slice(5).split('/');
    return `node:${(segments.length >= 3 ? segments.slice(0, -1) : segments).join('/')}`;
  }
  const packageMatch = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (packageMatch) return packageMatch[1]!;
  const ownMatch = /^(apps\/server\/src\/[^/]+(?:\/[^/]+)?|packages\/[^/]+\/src\/[^/]+)/.exec(url);
  if (ownMatch) return ownMatch[1]!.replace(/\.ts$/, '');
  return url;
}

function isOwnCode(node: ProfileNode): boolean {
  const url = shortUrl(node.callFrame.url);
  return url.startsWith('apps/') || url.startsWith('packages/');
}

export interface ProfileSummary {
  totalMs: number;
  lines: string[];
}

export function summarizeProfile(path: string, top = 20): ProfileSummary {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

  // Self time per node from the sample stream: each sample owns the delta to the next one.
  const selfMs = new Map<number, number>();
  for (let index = 0; index < profile.samples.length; index += 1) {
    const delta = (profile.timeDeltas[index + 1] ?? 0) / 1000;
    const id = profile.samples[index]!;
    selfMs.set(id, (selfMs.get(id) ?? 0) + delta);
  }
  const idleMs = [...selfMs].filter(([id]) => byId.get(id)?.callFrame.functionName === '(idle)').reduce((sum, [, ms]) => sum + ms, 0);
  const totalMs = [...selfMs.values()].reduce((sum, ms) => sum + ms, 0);
  const busyMs = totalMs - idleMs;

  const selfByFrame = new Map<string, number>();
  const selfByArea = new Map<string, number>();
  const inclusiveOwn = new Map<string, number>();
  for (const [id, ms] of selfMs) {
    const node = byId.get(id)!;
    if (node.callFrame.functionName === '(idle)') continue;
    selfByFrame.set(frameKey(node), (selfByFrame.get(frameKey(node)) ?? 0) + ms);
    selfByArea.set(areaOf(node), (selfByArea.get(areaOf(node)) ?? 0) + ms);
    const seen = new Set<string>();
    for (let cursor: number | undefined = id; cursor !== undefined; cursor = parentOf.get(cursor)) {
      const frame = byId.get(cursor)!;
      if (!isOwnCode(frame)) continue;
      const key = frameKey(frame);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusiveOwn.set(key, (inclusiveOwn.get(key) ?? 0) + ms);
    }
  }

  const share = (ms: number) => `${((100 * ms) / busyMs).toFixed(1).padStart(5)} %`;
  const topOf = (map: Map<string, number>, count: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([key, ms]) => `  ${share(ms)}  ${key}`);
  const lines = [
    `busy ${busyMs.toFixed(0)} ms of ${totalMs.toFixed(0)} ms profiled (idle ${idleMs.toFixed(0)} ms); shares below are of busy time`,
    'self time by package / area:',
    ...topOf(selfByArea, top),
    'self time by function:',
    ...topOf(selfByFrame, top),
    'our functions, including what they call:',
    ...topOf(inclusiveOwn, top),
  ];
  return { totalMs, lines };
}
