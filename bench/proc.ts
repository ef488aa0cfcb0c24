import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * CPU time and resident memory of a process, read from /proc so the figure covers every thread
 * (V8's GC helpers, libuv's pool) and nothing of the processes around it.
 */

const clockTicksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** utime + stime of the whole process, in microseconds (resolution: one clock tick, usually 10 ms). */
export function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces and parentheses; fields are counted after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the name, index 0 is field 3 (state): utime is field 14, stime field 15.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1_000_000) / clockTicksPerSecond;
}

/** Resident set size in kilobytes. */
export function rssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]);
}

/** Runs `work` and returns its result with the CPU each listed process spent meanwhile. */
export async function withCpu<T>(pids: number[], work: () => Promise<T>): Promise<{ result: T; cpuMicros: number[] }> {
  const before = pids.map(cpuMicros);
  const result = await work();
  const after = pids.map(cpuMicros);
  return { result, cpuMicros: after.map((value, index) => value - before[index]!) };
}

/** Samples RSS every `intervalMs` until stopped; gives the peak seen. */
export function sampleRss(pid: number, intervalMs = 50): { stop(): number } {
  let peak = rssKb(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssKb(pid));
    } catch {
      // the process ended; the caller sees that on its own
    }
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      try {
        peak = Math.max(peak, rssKb(pid));
      } catch {
        // as above
      }
      return peak;
    },
  };
}

/** Busy time of one CPU (user, nice, system, irq, softirq, steal) in microseconds, from /proc/stat. */
export function coreBusyMicros(core: number): number {
  const line = readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .find((candidate) => candidate.startsWith(`cpu${core} `));
  if (!line) throw new Error(`no cpu${core} in /proc/stat`);
  const [, user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).map(Number);
  return ((user! + nice! + system! + irq! + softirq! + steal!) * 1_000_000) / clockTicksPerSecond;
}

/** Connections the kernel refused because a listen queue was full (TcpExt ListenOverflows). */
export function listenOverflows(): number {
  const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n');
  for (let index = 0; index + 1 < lines.length; index += 2) {
    if (!lines[index]!.startsWith('TcpExt:')) continue;
    const names = lines[index]!.split(/\s+/);
    const values = lines[index + 1]!.split(/\s+/);
    const position = names.indexOf('ListenOverflows');
    if (position > 0) return Number(values[position]);
  }
  return 0;
}
