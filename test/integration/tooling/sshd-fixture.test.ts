// The test sshd (test/helpers/sshd.ts) leaves nothing behind: a command that one of its sessions left
// running (backgrounded, so re-parented to init when its session ended, out of sight of the child
// registry) is killed by stop(), as fleet tests rely on when a rig's double sleeps past the test.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { pidRunning } from '../../helpers/pid-running.ts';
import { startTestSshd, type TestSshd } from '../../helpers/sshd.ts';

describe('test sshd', () => {
  let sshd: TestSshd | null = null;
  const left: number[] = [];
  afterEach(async () => {
    await sshd?.stop();
    sshd = null;
    // Whatever the outcome, nothing this file started keeps sleeping.
    for (const pid of left.splice(0)) {
      try {
        if (pidRunning(pid)) process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });

  it('stop() kills a command its session left running, orphaned', async () => {
    sshd = await startTestSshd();
    const ssh = (command: string) =>
      execFileSync('ssh', ['-F', sshd!.clientConfig, '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'BatchMode=yes', '-p', String(sshd!.port), '127.0.0.1', command], {
        encoding: 'utf8',
        timeout: 60_000,
      });
    const pid = Number(ssh('sleep 300 </dev/null >/dev/null 2>&1 & echo $!').trim());
    expect(pid).toBeGreaterThan(0);
    left.push(pid);
    // The session has ended (ssh returned): the sleep lives on, no longer under sshd.
    expect(pidRunning(pid)).toBe(true);
    const ppid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
    expect(readFileSync(`/proc/${ppid}/comm`, 'utf8').trim()).not.toBe('sshd');
    await sshd.stop();
    await expect.poll(() => pidRunning(pid), { timeout: 20_000, interval: 100 }).toBe(false);
  }, 120_000);
});
