import { readFileSync } from 'node:fs';
import { writeFileAtomic } from '../lib/atomic-file.ts';
import { groupAlive, terminateGroup } from './process-group.ts';

interface Entry {
  pid: number;
  /** A piece of the command line that must still be there, so a recycled pid is never killed. */
  marker: string;
  startedAt: number;
}

function cmdlineOf(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return null;
  }
}

/**
 * Serve process groups the app started, on disk. Engines run detached, so if the app itself is
 * killed they live on; the next start finds them here and ends them before launching new ones.
 */
export class ProcessRegistry {
  private readonly file: string;
  constructor(file: string) {
    this.file = file;
  }

  private read(): Entry[] {
    try {
      const v = JSON.parse(readFileSync(this.file, 'utf8')) as unknown;
      return Array.isArray(v) ? (v as Entry[]).filter((e) => Number.isInteger(e.pid) && e.pid > 1 && typeof e.marker === 'string') : [];
    } catch {
      return [];
    }
  }

  private write(entries: Entry[]): void {
    try {
      writeFileAtomic(this.file, JSON.stringify(entries));
    } catch {
      // Best effort: losing the record only means a leftover is not reaped next time.
    }
  }

  add(pid: number, marker: string): void {
    this.write([...this.read().filter((e) => e.pid !== pid), { pid, marker, startedAt: Date.now() }]);
  }

  remove(pid: number): void {
    this.write(this.read().filter((e) => e.pid !== pid));
  }

  /** Ends recorded groups that are still running our serve; returns the pids it ended. */
  async reapLeftovers(graceMs = 10_000): Promise<number[]> {
    const reaped: number[] = [];
    for (const e of this.read()) {
      const cmd = cmdlineOf(e.pid);
      if (!groupAlive(e.pid) || cmd === null || !cmd.includes(e.marker)) continue;
      await terminateGroup(e.pid, graceMs);
      reaped.push(e.pid);
    }
    this.write([]);
    return reaped;
  }
}
