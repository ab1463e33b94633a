import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { startHeadless, type RunningHeadless } from '../../../electron/headless.ts';
import type { Result } from '../../../shared/result.ts';

const MINER_KEY = 'ek_live_4b1d7c0e9f2a6b3c8d5e0f1a2b3c4d5e';
/** A chat webhook URL is a credential too (anyone holding it can post): only its host may be shown. */
const WEBHOOK = 'http://127.0.0.1:9/hooks/T0001/B0002/webhook-secret-7f3a9c';

describe('no secret reaches the renderer, the logs or diagnostics', () => {
  let engine: RunningHeadless;
  let ws: WebSocket;
  const frames: string[] = [];
  const onFrame = new Set<() => void>();
  /** Resolves on the frame that makes `seen` true (or at once): the negative checks below must not pass only because frames are late. */
  const frameWhere = (seen: (f: string) => boolean) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!frames.some(seen)) return;
        onFrame.delete(check);
        resolve();
      };
      onFrame.add(check);
      check();
    });
  let nextId = 1;
  const call = (method: string, req: unknown) =>
    new Promise<Result<unknown>>((resolve) => {
      const id = nextId++;
      const onMsg = (d: Buffer) => {
        const f = JSON.parse(String(d)) as { kind: string; id?: number; result?: Result<unknown> };
        if (f.kind === 'result' && f.id === id) {
          ws.off('message', onMsg);
          resolve(f.result!);
        }
      };
      ws.on('message', onMsg);
      ws.send(JSON.stringify({ kind: 'invoke', id, method, req }));
    });

  beforeAll(async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'engy-secrets-'));
    process.env.BT_WALLET_PATH = join(dataDir, 'wallets');
    engine = await startHeadless({ host: '127.0.0.1', port: 0, dataDir });
    ws = new WebSocket(`ws://127.0.0.1:${engine.server.port}/ws?token=${engine.server.token}`);
    ws.on('message', (d) => {
      frames.push(String(d));
      for (const check of [...onFrame]) check();
    });
    await new Promise((r) => ws.once('open', r));
  });
  afterAll(async () => {
    ws?.close();
    await engine?.stop();
    delete process.env.BT_WALLET_PATH;
  });

  it('a new hotkey or coldkey mnemonic and the miner key appear only where the user asked for them', { timeout: 300_000 }, async () => {
    const created = await call('wallet.createHotkey', { wallet: 'w1', hotkey: 'h1' });
    expect(created.ok).toBe(true);
    const { mnemonic, ss58Address } = (created as { ok: true; value: { mnemonic: string; ss58Address: string } }).value;
    expect(mnemonic.split(' ').length).toBeGreaterThanOrEqual(12);
    await call('settings.update', { role: 'mine', wallet: { name: 'w1', hotkey: 'h1' } });
    const set = await call('wallet.setMinerKey', { key: MINER_KEY });
    expect(set).toMatchObject({ ok: true, value: { present: true, masked: 'ek_…4d5e' } });
    const hook = await call('alerts.setWebhook', { url: WEBHOOK });
    expect(hook).toEqual({ ok: true, value: { configured: true, host: '127.0.0.1:9', lastDelivery: null } });
    const imported = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
    const imp = await call('wallet.importHotkey', { wallet: 'w1', hotkey: 'h2', secret: imported });
    expect(imp.ok).toBe(true);
    const again = await call('wallet.importHotkey', { wallet: 'w1', hotkey: 'h2', secret: imported });
    expect(again).toMatchObject({ ok: false });
    // A coldkey made in the panel (the real btcli KDF): its words come back once, its password never.
    const COLD_PW = 'cold-password-never-echoed';
    const cold = (await call('wallet.createColdkey', { wallet: 'w1', password: COLD_PW })) as { ok: true; value: { mnemonic: string; ss58Address: string } };
    expect(cold.ok).toBe(true);
    const coldWords = cold.value.mnemonic;
    const again2 = await call('wallet.createColdkey', { wallet: 'w1', password: COLD_PW });
    expect(again2).toMatchObject({ ok: false, error: { code: 'wallet-exists' } });
    const started = await call('mining.start', null);
    expect(started.ok).toBe(false);
    const diag = (await call('diagnostics.export', null)) as { ok: true; value: { path: string } };
    // Everything logged so far has reached this client (log lines go out in timed batches), and so
    // has the wallet snapshot with the masked key: only then do the "never sent" checks mean something.
    const newest = engine.engine.logs.recent({ limit: 1 }).at(-1)!.seq;
    await frameWhere((f) => f.startsWith('{"kind":"event","event":"logs"') && (JSON.parse(f) as { payload: Array<{ seq: number }> }).payload.some((l) => l.seq >= newest));
    await frameWhere((f) => f.includes('"topic":"wallet"') && f.includes('ek_…4d5e'));
    await frameWhere((f) => f.includes('"topic":"notifications"') && f.includes('"host":"127.0.0.1:9"'));
    expect(frames.filter((f) => f.includes('webhook-secret-7f3a9c'))).toEqual([]);

    // The one frame that answers createHotkey carries the mnemonic, once, by design (shown-once step).
    const withMnemonic = frames.filter((f) => f.includes(mnemonic));
    expect(withMnemonic).toHaveLength(1);
    expect(withMnemonic[0]).toContain('"kind":"result"');
    expect(frames.some((f) => f.includes(ss58Address))).toBe(true);
    expect(frames.filter((f) => f.includes(MINER_KEY))).toEqual([]);
    const walletFile = JSON.parse(readFileSync(join(process.env.BT_WALLET_PATH!, 'w1', 'hotkeys', 'h1'), 'utf8')) as { secretSeed: string };
    for (const secret of [walletFile.secretSeed, walletFile.secretSeed.replace(/^0x/, '')]) expect(frames.some((f) => f.includes(secret))).toBe(false);

    const logs = engine.engine.logs
      .recent({ limit: 10_000 })
      .map((l) => l.msg)
      .join('\n');
    expect(frames.some((f) => f.includes(imported))).toBe(false);
    for (const secret of [MINER_KEY, mnemonic, walletFile.secretSeed, imported, 'webhook-secret-7f3a9c']) expect(logs.includes(secret)).toBe(false);
    expect(frames.filter((f) => f.includes(coldWords))).toHaveLength(1);
    expect(frames.some((f) => f.includes(COLD_PW))).toBe(false);
    for (const secret of [coldWords, COLD_PW]) expect(logs.includes(secret)).toBe(false);
    const bundle = readFileSync(diag.value.path, 'utf8');
    for (const secret of [MINER_KEY, mnemonic, walletFile.secretSeed, coldWords, COLD_PW, 'webhook-secret-7f3a9c']) expect(bundle.includes(secret)).toBe(false);
    // The browser's download carries the same redacted bundle.
    const dl = (await call('diagnostics.download', null)) as { ok: true; value: { fileName: string; content: string; bytes: number } };
    expect(dl.value.fileName).toMatch(/^engy-diagnostics-.*\.json$/);
    expect(Buffer.byteLength(dl.value.content, 'utf8')).toBe(dl.value.bytes);
    for (const secret of [MINER_KEY, mnemonic, coldWords, COLD_PW, 'webhook-secret-7f3a9c']) expect(dl.value.content.includes(secret)).toBe(false);
    expect(bundle).toContain('ek_…4d5e');
  });
});
