/** Reads a V8 `.cpuprofile` (node --cpu-prof) and tells where the time went: by function and by part. */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** Which part of the stack a frame belongs to: a package, Node's internals, our code, or V8's own. */
export function partOf(url: string, functionName: string): string {
  if (!url) {
    if (functionName === '(garbage collector)') return 'V8: garbage collection';
    if (functionName === '(idle)') return 'idle';
    if (functionName === '(program)') return 'V8/native (program)';
    return `native: ${functionName || '(anonymous)'}`;
  }
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return `pkg: ${modules[1]}`;
  if (url.startsWith('node:')) {
    const name = url.slice('node:'.length).replace(/^internal\//, '');
    return `node: ${name.split('/').slice(0, 2).join('/')}`;
  }
  const ours = /\/(dist|src)\/(.+)$/.exec(url);
  if (ours) return `app: ${ours[2]}`;
  return url;
}

export interface Summary {
  totalMs: number;
  busyMs: number;
  byFunction: { name: string; part: string; ms: number; share: number }[];
  byPart: { part: string; ms: number; share: number }[];
}

/**
 * Self time per function and per part, as shares of the busy (non-idle) time. With `fromMs`, only
 * samples taken that long after the profile started (to leave out start-up and warm-up).
 */
export function summarize(profile: CpuProfile, fromMs = 0): Summary {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfMs = new Map<number, number>();
  let at = 0;
  for (let index = 0; index < profile.samples.length; index++) {
    const id = profile.samples[index]!;
    const delta = (profile.timeDeltas[index] ?? 0) / 1000;
    at += delta;
    if (at < fromMs) continue;
    selfMs.set(id, (selfMs.get(id) ?? 0) + delta);
  }
  const functions = new Map<string, { name: string; part: string; ms: number }>();
  const parts = new Map<string, number>();
  let totalMs = 0;
  let idleMs = 0;
  for (const [id, ms] of selfMs) {
    const frame = nodes.get(id)!.callFrame;
    const part = partOf(frame.url, frame.functionName);
    totalMs += ms;
    if (part === 'idle') {
      idleMs += ms;
      continue;
    }
    const file = frame.url.split('/').slice(-2).join('/');
    const name = `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
    const entry = functions.get(name) ?? { name, part, ms: 0 };
    entry.ms += ms;
    functions.set(name, entry);
    parts.set(part, (parts.get(part) ?? 0) + ms);
  }
  const busyMs = totalMs - idleMs;
  return {
    totalMs,
    busyMs,
    byFunction: [...functions.values()]
      .sort((a, b) => b.ms - a.ms)
      .map((entry) => ({ ...entry, share: entry.ms / busyMs })),
    byPart: [...parts.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([part, ms]) => ({ part, ms, share: ms / busyMs })),
  };
}

export function formatSummary(summary: Summary, top = 25): string {
  const percent = (share: number) => `${(share * 100).toFixed(1)}%`.padStart(6);
  const lines = [
    `busy ${summary.busyMs.toFixed(0)} ms of ${summary.totalMs.toFixed(0)} ms profiled`,
    '',
    'By part (self time):',
    ...summary.byPart.slice(0, top).map((entry) => `  ${percent(entry.share)}  ${entry.part}`),
    '',
    'By function (self time):',
    ...summary.byFunction
      .slice(0, top)
      .map((entry) => `  ${percent(entry.share)}  ${entry.name}  [${entry.part}]`),
  ];
  return lines.join('\n');
}
