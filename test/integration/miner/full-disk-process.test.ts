// Issue 31's reproduction, as a real process on a real tiny filesystem: `engy-panel mine` with its data
// dir on a tmpfs that fills up while the gateway double probes it. Before the one composition root the
// storage watch was not in `mine` and the rows were lost without a line; now the log says so. Needs a
// mount namespace (`unshare -rm`, to mount the tmpfs without touching the host); skipped with the reason
// where there is none.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKPOINT, KEY, ROOT, startFakeServe, until, type FakeServe } from './harness.ts';

const probe = spawnSync('unshare', ['-rm', 'mount', '-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', '/mnt'], { encoding: 'utf8' });
const noNamespace = probe.status === 0 ? null : `no mount namespace here (unshare -rm: ${(probe.stderr || probe.error?.message || 'failed').trim()})`;

// Mounts the tmpfs, starts the miner on it, fills the disk once the database is open, forwards SIGTERM.
const SCRIPT = `
set -u
mkdir -p "$MNT" && mount -t tmpfs -o size=4m tmpfs "$MNT" || exit 90
env PATH=/nonexistent "$NODE" "$BIN" mine --serve-url "$SERVE" --checkpoint "$CKPT" --gateway "$GW" --data-dir "$MNT/data" --worker-name box-full &
pid=$!
trap 'kill -TERM $pid 2>/dev/null; wait $pid; exit $?' TERM INT
i=0
while [ ! -e "$MNT/data/engy-panel.sqlite-wal" ] && [ $i -lt 1200 ]; do sleep 0.1; i=$((i+1)); done
dd if=/dev/zero of="$MNT/fill" bs=4096 2>/dev/null
echo "TEST: the data dir's filesystem is full"
wait $pid
`;

describe.skipIf(noNamespace !== null)(`engy-panel mine on a full tmpfs (issue 31)${noNamespace ? `: skipped, ${noNamespace}` : ''}`, () => {
  let serve: FakeServe;
  let dir: string;
  beforeAll(async () => {
    serve = await startFakeServe();
    dir = mkdtempSync(join(tmpdir(), 'engy-mine-full-'));
  });
  afterAll(async () => {
    await serve.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says the rows it cannot save, once, and keeps serving', { timeout: 90_000 }, async () => {
    const gw = spawn(
      process.execPath,
      [join(ROOT, 'test/doubles/gateway/main.ts'), '--port', '0', '--workers', '8', '--keys', KEY, '--judge-ms', '300', '--probe-words', '20', '--probe-tokens', '16'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let miner: ReturnType<typeof spawn> | null = null;
    try {
      const gwUrl = await new Promise<string>((resolve, reject) => {
        let out = '';
        gw.once('exit', () => reject(new Error(`the gateway double exited: ${out}`)));
        gw.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /listening on (ws:\/\/\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
      });
      const keyFile = join(dir, 'key');
      writeFileSync(keyFile, KEY, { mode: 0o600 });
      const env = {
        ...process.env,
        ENGY_MINER_KEY_FILE: keyFile,
        ENGY_FROM_SOURCE: '1',
        MNT: join(dir, 'mnt'),
        NODE: process.execPath,
        BIN: join(ROOT, 'bin/engy-panel.mjs'),
        SERVE: serve.url,
        CKPT: CHECKPOINT,
        GW: gwUrl,
      };
      const proc = spawn('unshare', ['-rm', 'sh', '-c', SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'], env, detached: true });
      miner = proc;
      let out = '';
      proc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
      proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
      await until(() => out.includes('TEST: the data dir'), 40_000, 'the filesystem filled');
      // The probes keep coming: their rows cannot be written, and the log says so (once a minute at most).
      await until(() => /ERROR \[miner\] history: \d+ record\(s\) not saved so far: the disk holding the data dir is full/.test(out), 60_000, 'the full-disk line in the log');
      expect(out.match(/history: \d+ record\(s\) not saved so far/g)).toHaveLength(1);
      await until(() => (out.match(/ ok \(|leg=\d+ ok /g) ?? []).length >= 1, 30_000, 'a probe answered on the full disk');
      expect(out).not.toContain(KEY);
      proc.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (miner?.pid !== undefined && miner.exitCode === null) {
        try {
          process.kill(-miner.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      gw.kill('SIGTERM');
    }
  });
});
