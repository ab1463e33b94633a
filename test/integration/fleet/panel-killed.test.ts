// A panel killed outright (SIGKILL: no exit handler runs) takes its SSH tunnels with it. The panel is a real
// headless engine holding two rigs (fake rig engines behind the real test sshd, docs/fleet.md); once both are
// online, its tunnel ssh processes are known by pid; after the SIGKILL each is gone (or a zombie no one has
// reaped yet, which holds no port and no connection) within a stated time, and the rigs see their panel leave.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { saveRigs } from '../../../electron/engine/fleet/rig-registry.ts';
import { writeFileAtomic } from '../../../electron/engine/lib/atomic-file.ts';
import { dataPaths } from '../../../electron/engine/lib/paths.ts';
import { CONTRACT_VERSION } from '../../../shared/api.ts';
import { defaultSettings } from '../../../shared/settings.ts';
import { startFakeRigEngine, type FakeRigEngine } from '../../doubles/fleet/fake-rig-engine.ts';
import { startHeadlessChild } from '../../helpers/headless-process.ts';
import { startTestSshd } from '../../helpers/sshd.ts';
import { tempDirs } from '../../helpers/temp-dirs.ts';

const printAccess = join(import.meta.dirname, '..', '..', 'doubles', 'fleet', 'print-access.mjs');
const temp = tempDirs('engy-panel-killed-');
// Generous: the machine running these may be loaded many times over its cores.
const poll = { timeout: 150_000, interval: 250 };
/** How long a killed panel's tunnels may outlive it: ssh sees its stdin close, the rig's `cat` exits, the session ends. */
const GONE_WITHIN_MS = 30_000;

/** Live (not zombie) processes whose parent is `ppid`, with their argv. */
function childrenOf(ppid: number): { pid: number; argv: string[] }[] {
  const out: { pid: number; argv: string[] }[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(f[1]) !== ppid || f[0] === 'Z') continue;
      out.push({ pid: Number(name), argv: readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean) });
    } catch {
      // exited while we looked
    }
  }
  return out;
}

/** Running: the pid exists and is not a zombie (a dead child whose reaper has not collected it yet). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('a panel killed with SIGKILL', () => {
  const cleanups: Array<() => unknown> = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it(`leaves no ssh tunnel behind: each is gone within ${GONE_WITHIN_MS / 1000} s`, async () => {
    const sshd = await startTestSshd();
    cleanups.push(() => sshd.stop());
    const rigs: FakeRigEngine[] = [];
    for (let i = 0; i < 2; i++) {
      const e = await startFakeRigEngine('good');
      cleanups.push(() => e.close());
      rigs.push(e);
    }
    // The panel's data dir: the simulated network (it reaches nothing real), two rigs, the sshd's host key accepted.
    const panelDir = temp();
    writeFileAtomic(dataPaths(panelDir).settings, JSON.stringify({ ...defaultSettings(), network: 'simulated' }, null, 2) + '\n');
    mkdirSync(join(panelDir, 'fleet'), { recursive: true, mode: 0o700 });
    writeFileSync(join(panelDir, 'fleet', 'known_hosts'), execFileSync('ssh-keyscan', ['-p', String(sshd.port), '127.0.0.1'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }), {
      mode: 0o600,
    });
    saveRigs(
      join(panelDir, 'fleet', 'rigs.json'),
      rigs.map((e, i) => {
        const dir = temp();
        writeFileSync(join(dir, 'access.json'), JSON.stringify({ token: e.token, port: e.port, running: true, version: '0.1.0', contract: CONTRACT_VERSION }));
        return { id: `feedf00d000${i}`, name: `rig-${i}`, target: sshd.target, command: `${process.execPath} ${printAccess}`, dataDir: dir };
      }),
    );
    const ui = temp();
    writeFileSync(join(ui, 'index.html'), '<!doctype html><title>t</title>');
    const panel = await startHeadlessChild({ ENGY_RENDERER_DIR: ui, ENGY_FLEET_SSH_CONFIG: sshd.clientConfig }, [], panelDir, 120_000);
    cleanups.push(() => panel.stop());
    const panelPid = panel.child.pid!;
    const tunnelsOf = () => childrenOf(panelPid).filter((c) => c.argv[0] === 'ssh' || c.argv[0]?.endsWith('/ssh'));
    let tunnels: number[] = [];
    // A tunnel survivor is never left to the next test, whatever happens below.
    cleanups.push(() => {
      for (const pid of tunnels.filter(running)) process.kill(pid, 'SIGKILL');
    });
    // Both rigs online: each has the panel's link connected, through its own `ssh -L` child of the panel.
    await expect.poll(() => rigs.every((r) => r.clientCount() === 1), poll).toBe(true);
    await expect.poll(() => tunnelsOf().filter((c) => c.argv.includes('-L')).length, poll).toBe(2);
    tunnels = tunnelsOf()
      .filter((c) => c.argv.includes('-L'))
      .map((c) => c.pid);

    panel.child.kill('SIGKILL');
    await expect.poll(() => panel.child.signalCode, poll).toBe('SIGKILL');
    await expect.poll(() => tunnels.filter(running), { timeout: GONE_WITHIN_MS, interval: 250 }).toEqual([]);
    // And the rigs' engines see the panel's connections closed.
    await expect.poll(() => rigs.map((r) => r.clientCount()), { timeout: GONE_WITHIN_MS, interval: 250 }).toEqual([0, 0]);
  }, 400_000);
});
