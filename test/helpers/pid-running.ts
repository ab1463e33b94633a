// Whether a pid still names a live process, for tests that check nothing they started outlived them.
// A zombie counts as gone: it has exited and only waits for its (possibly new) parent to reap it.
import { readFileSync } from 'node:fs';

export function pidRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    // EPERM: it exists, owned by someone else.
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // The state letter follows the command name, which is in parentheses and may itself hold ') '.
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}
