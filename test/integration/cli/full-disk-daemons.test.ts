// Issue 31: `mine` and `validate` were silent on a full disk (the storage watch lived in the panel's
// composition only: 376 of 489 history rows lost in 94 s on a 400 KiB tmpfs with no log line). Both
// daemons now build through composeEngine, whose mine and validate profiles carry the storage watch.
// The full disk is SQLite's page cap at the file's current size, which fails exactly as a full disk
// does (SQLITE_FULL), as test/unit/notify/storage-watch.test.ts does.
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { DatabaseSync } from 'node:sqlite';
import { composeEngine } from '../../../electron/compose.ts';
import { RequestRecords } from '../../../electron/engine/miner/request-records.ts';
import { mineOptions, validateOptions } from '../../helpers/daemon-compose.ts';
import { tempDirs } from '../../helpers/temp-dirs.ts';

const fresh = tempDirs('engy-fulldisk-');
const LOST = /history: \d+ record\(s\) not saved so far: the disk holding the data dir is full \(database or disk is full\)/;

/** The disk fills: no page can be added, and the table's own pages are packed to the last byte. */
function fillDisk(db: DatabaseSync, fill: () => void): void {
  const pages = (db.prepare('PRAGMA page_count').get() as { page_count: number }).page_count;
  db.exec(`PRAGMA max_page_count = ${pages}`);
  for (let i = 0; i < 10_000; i++) {
    try {
      fill();
    } catch {
      return;
    }
  }
  throw new Error('the capped database never filled');
}

describe('the daemons on a full disk (issue 31)', () => {
  it('mine: served requests that cannot be saved raise the alert and one log line', { timeout: 60_000 }, async () => {
    const lines: string[] = [];
    const engine = await composeEngine({ ...mineOptions(fresh()), echo: (l) => void lines.push(l), runtime: { minLevel: 'info' } });
    try {
      const db = engine.runtime.db;
      // The miner's own writer (MinerService records every request through it), batched as in a run.
      const records = new RequestRecords(db);
      let n = 0;
      const row = () => ({
        corrId: `c${n}`,
        requestId: `r${n++}`,
        leg: 0,
        engine: 'engine-0',
        stream: true,
        receivedAt: Date.now(),
        ttftMs: 40,
        tpotMs: 9,
        e2eMs: 900,
        promptTokens: 300,
        completionTokens: 100,
        cachedTokens: 0,
        proofMs: 30,
        outcome: 'ok' as const,
        finishReason: 'stop',
        cause: null,
      });
      fillDisk(db.db, () =>
        db.db
          .prepare(
            `INSERT INTO miner_requests (corr_id, request_id, leg, engine, stream, received_at, ttft_ms, tpot_ms, e2e_ms, prompt_tokens, completion_tokens, cached_tokens, proof_ms, outcome, finish_reason, cause) VALUES ('f', 'f', 0, 'e', 1, 0, 1, 1, 1, 1, 1, 0, 1, 'ok', 'stop', NULL)`,
          )
          .run(),
      );
      for (let i = 0; i < 50; i++) records.add(row(), Date.now());
      db.flushWrites();
      await expect.poll(() => lines.filter((l) => LOST.test(l)), { timeout: 20_000 }).toHaveLength(1);
      expect(lines.find((l) => LOST.test(l))).toMatch(/ ERROR \[miner\] history: 50 record\(s\) not saved so far/);
      const alert = engine.notifications.snapshot().recent.find((a) => a.kind === 'storage-failing');
      expect(alert).toMatchObject({ active: true, severity: 'error', title: 'History is not being saved' });
    } finally {
      await engine.dispose();
    }
  });

  it('validate: ticks that cannot be saved raise the alert and one log line, and the loop and its heartbeat go on', { timeout: 60_000 }, async () => {
    const lines: string[] = [];
    const opts = validateOptions(fresh(), '1');
    const engine = await composeEngine({ ...opts, echo: (l) => void lines.push(l) });
    let stop: (s: string) => void = () => {};
    const stopped = new Promise<string>((r) => (stop = r));
    try {
      const db = engine.runtime.db.db;
      fillDisk(db, () => db.prepare("INSERT INTO validator_ticks(at, outcome, epoch_index, block, detail) VALUES (0, 'f', NULL, NULL, '')").run());
      const done = engine.run(stopped);
      await expect.poll(() => lines.filter((l) => LOST.test(l)), { timeout: 30_000 }).toHaveLength(1);
      // Before: the failed insert was thrown into the tick, which then skipped the heartbeat too.
      await expect.poll(() => existsSync(opts.validate.config.heartbeatFile), { timeout: 30_000 }).toBe(true);
      expect(engine.notifications.snapshot().recent.find((a) => a.kind === 'storage-failing')).toMatchObject({ active: true });
      stop('SIGTERM');
      await expect(done).resolves.toBe(0);
    } finally {
      stop('SIGTERM');
      await engine.dispose();
    }
  });
});
