// The base every entry builds from (electron/runtime.ts): a damaged database is moved aside and the
// engine starts with a fresh one (and says so, in the logs and as a notification); temp files a killed
// writer left are swept; the data dir is 0700 and settings and database 0600; a second engine on the
// same data dir is refused naming the holder's pid; a data dir that is a file gets a sentence.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { composeEngine } from '../../../electron/compose.ts';
import { openRuntime } from '../../../electron/runtime.ts';
import { dataPaths } from '../../../electron/engine/lib/paths.ts';
import { Database } from '../../../electron/engine/store/database.ts';

const mode = (p: string) => statSync(p).mode & 0o777;
const fresh = () => join(mkdtempSync(join(tmpdir(), 'engy-rt-')), 'data');

function filledDatabase(path: string): void {
  const db = new Database(path);
  db.db.exec('CREATE TABLE t (a TEXT)');
  const ins = db.db.prepare('INSERT INTO t VALUES (?)');
  for (let i = 0; i < 3000; i++) ins.run(`row ${i} ${'x'.repeat(200)}`);
  db.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
}

/** A pid that was a process a moment ago and is not any more. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('the runtime every entry builds from', () => {
  for (const [what, damage] of [
    ['random bytes', (p: string) => writeFileSync(p, randomBytes(64 * 1024))],
    ['a truncated file', (p: string) => truncateSync(p, Math.floor(statSync(p).size / 2))],
  ] as const) {
    it(`moves a database of ${what} aside, warns, and starts a fresh one`, async () => {
      const root = fresh();
      const paths = dataPaths(root);
      mkdirSync(root, { recursive: true });
      filledDatabase(paths.database);
      damage(paths.database);
      const rt = await openRuntime({ dataDir: root, now: () => Date.parse('2026-01-02T03:04:05.678Z') });
      try {
        expect(rt.warnings).toHaveLength(1);
        expect(rt.warnings[0]!.body).toContain(`${paths.database}.corrupt-2026-01-02T03-04-05-678Z`);
        expect(readdirSync(root)).toContain('engy-panel.sqlite.corrupt-2026-01-02T03-04-05-678Z');
        expect(rt.logs.recent({}).some((l) => l.level === 'warn' && l.msg.includes('could not be read'))).toBe(true);
        // The fresh database works.
        rt.db.db.exec('CREATE TABLE ok (a INTEGER)');
        expect(rt.db.check()).toBeNull();
      } finally {
        await rt.dispose();
      }
    });
  }

  it('shows a replaced database as a notification in the engine', async () => {
    const root = fresh();
    mkdirSync(root, { recursive: true });
    writeFileSync(dataPaths(root).database, 'this is not a database at all, just text');
    const engine = await composeEngine({ dataDir: root, shell: 'headless' });
    try {
      const recent = engine.notifications.snapshot().recent;
      expect(recent.map((n) => [n.kind, n.severity])).toContainEqual(['data-recovered', 'warn']);
      expect(recent.find((n) => n.kind === 'data-recovered')!.body).toMatch(/moved to .*engy-panel\.sqlite\.corrupt-/);
    } finally {
      await engine.dispose();
    }
    // The Alerts history is kept in the (fresh) database: the next start still lists it.
    const again = await composeEngine({ dataDir: root, shell: 'headless' });
    try {
      expect(again.notifications.snapshot().recent.filter((n) => n.kind === 'data-recovered')).toHaveLength(1);
    } finally {
      await again.dispose();
    }
  });

  it("sweeps temp files a killed writer left (beside the miner key too), keeps a live writer's", async () => {
    const root = fresh();
    const paths = dataPaths(root);
    mkdirSync(paths.secrets, { recursive: true });
    mkdirSync(join(root, 'validator'), { recursive: true });
    const dead = deadPid();
    const stale = [join(root, `settings.json.${dead}.1700000000000.tmp`), join(paths.secrets, `miner-key.${dead}.1700000000001.tmp`), join(root, 'validator', `state.json.${dead}.1700000000002.tmp`)];
    const live = join(root, `settings.json.${process.ppid}.1700000000003.tmp`);
    const unrelated = join(root, 'notes.tmp');
    for (const f of [...stale, live, unrelated]) writeFileSync(f, 'partial');
    const rt = await openRuntime({ dataDir: root });
    try {
      const left = [...readdirSync(root), ...readdirSync(paths.secrets), ...readdirSync(join(root, 'validator'))];
      for (const f of stale) expect(left).not.toContain(f.split('/').pop());
      expect(left).toContain(live.split('/').pop());
      expect(left).toContain('notes.tmp');
      expect(rt.logs.recent({}).some((l) => l.msg.includes('interrupted write'))).toBe(true);
    } finally {
      await rt.dispose();
    }
  });

  it('creates the data dir 0700, the database 0600, and tightens an old 0644 settings file', async () => {
    const root = fresh();
    const rt = await openRuntime({ dataDir: root });
    await rt.dispose();
    expect(mode(root)).toBe(0o700);
    expect(mode(dataPaths(root).database)).toBe(0o600);
    writeFileSync(dataPaths(root).settings, '{}');
    chmodSync(dataPaths(root).settings, 0o644);
    const again = await openRuntime({ dataDir: root });
    await again.dispose();
    expect(mode(dataPaths(root).settings)).toBe(0o600);
  });

  it('refuses a second engine on the same data dir naming the pid, and frees it on dispose', async () => {
    const root = fresh();
    const first = await openRuntime({ dataDir: root });
    await expect(openRuntime({ dataDir: root })).rejects.toThrow(new RegExp(`Another engy panel engine \\(pid ${process.pid}.*is using ${root}`));
    await first.dispose();
    const second = await openRuntime({ dataDir: root });
    await second.dispose();
  });

  it('says what to do when the data dir is a file', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'engy-rt-')), 'data');
    writeFileSync(file, 'x');
    await expect(openRuntime({ dataDir: file })).rejects.toThrow(`The data dir cannot be used: a file is in the way at the data dir ${file}: move it aside, or choose another --data-dir.`);
  });
});
