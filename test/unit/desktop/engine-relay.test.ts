// The desktop engine relay's input paths with hostile input: the engine data key and its box, the
// messages main accepts from the engine process, and the host's answers while the engine is away.
import { EventEmitter } from 'node:events';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { openEngineDataKey } from '../../../electron/engine-data-key.ts';
import { EngineHost, type UtilityChild } from '../../../electron/engine-host.ts';
import { EngineToMainSchema, MainToEngineSchema } from '../../../electron/engine-relay-protocol.ts';
import { keyedSecretBox } from '../../../electron/engine/wallet/keyed-secret-box.ts';
import { FakeSecretBox } from '../../doubles/secret-box.ts';
import { tempDirs } from '../../helpers/temp-dirs.ts';

const tmp = tempDirs('engy-relay-');

describe('engine data key and keyed box', () => {
  it('seals the key with the OS box in a 0600 file in a 0700 folder, and opens the same key again', () => {
    const secrets = join(tmp(), 'secrets');
    const warnings: string[] = [];
    const key = openEngineDataKey(secrets, new FakeSecretBox(), (l) => warnings.push(l))!;
    expect(key).toHaveLength(32);
    const file = join(secrets, 'engine-data-key.sealed');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(secrets).mode & 0o777).toBe(0o700);
    expect(readFileSync(file).includes(Buffer.from(Buffer.from(key).toString('base64')))).toBe(false);
    expect(openEngineDataKey(secrets, new FakeSecretBox(), (l) => warnings.push(l))).toEqual(key);
    expect(warnings).toEqual([]);
  });

  it('no OS keyring: no key (the engine keeps its 0600 file and warns)', () => {
    const secrets = join(tmp(), 'secrets');
    expect(openEngineDataKey(secrets, new FakeSecretBox(false), () => undefined)).toBeNull();
    expect(existsSync(secrets)).toBe(false);
  });

  it('a damaged or foreign sealed key is replaced, with a warning', () => {
    const secrets = join(tmp(), 'secrets');
    const first = openEngineDataKey(secrets, new FakeSecretBox(), () => undefined)!;
    for (const junk of [Buffer.from('garbage'), Buffer.alloc(0), new FakeSecretBox().encrypt('c2hvcnQ=')]) {
      writeFileSync(join(secrets, 'engine-data-key.sealed'), junk);
      const warnings: string[] = [];
      const again = openEngineDataKey(secrets, new FakeSecretBox(), (l) => warnings.push(l))!;
      expect(again).toHaveLength(32);
      expect(Buffer.from(again).equals(Buffer.from(first))).toBe(false);
      expect(warnings.join()).toMatch(/entered again/);
    }
  });

  it('the keyed box round-trips and refuses tampered, foreign, short and wrong-key data', () => {
    const key = Buffer.alloc(32, 7);
    const box = keyedSecretBox(key);
    const sealed = box.encrypt('ek_live_0123456789abcdef');
    expect(sealed.includes(Buffer.from('ek_live'))).toBe(false);
    expect(box.decrypt(sealed)).toBe('ek_live_0123456789abcdef');
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1]! ^= 1;
    expect(() => box.decrypt(tampered)).toThrow();
    expect(() => box.decrypt(Buffer.from('EKB1'))).toThrow();
    expect(() => box.decrypt(Buffer.alloc(64))).toThrow();
    expect(() => keyedSecretBox(Buffer.alloc(32, 8)).decrypt(sealed)).toThrow();
    expect(() => keyedSecretBox(Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});

describe('relay messages', () => {
  it('main accepts only known shapes from the engine process', () => {
    const bad = [
      null,
      'ready',
      42,
      [],
      { kind: 'nope' },
      { kind: 'result' },
      { kind: 'result', id: -1, result: null },
      { kind: 'notify', title: 'x'.repeat(501), body: '' },
      { kind: 'event', event: 'other', payload: 1 },
      JSON.parse('{"__proto__": {"kind": "ready"}}') as unknown,
      { kind: 'update-call', id: 1, op: 'rm -rf' },
    ];
    for (const m of bad) expect(v.safeParse(EngineToMainSchema, m).success, JSON.stringify(m)).toBe(false);
    expect(v.safeParse(EngineToMainSchema, { kind: 'result', id: 3, result: { ok: true, value: 1 } }).success).toBe(true);
    // A rig's full panel: the panel engine's relayed rig events reach the window on the desktop too.
    expect(v.safeParse(EngineToMainSchema, { kind: 'event', event: 'rig', payload: { rigId: 'abcdef012345', kind: 'state', state: 'open', detail: '' } }).success).toBe(true);
  });

  it('the engine accepts only known shapes from main', () => {
    for (const m of [{ kind: 'start', dataDir: '', boxKey: null }, { kind: 'start', dataDir: '/x', boxKey: 'key' }, { kind: 'invoke', id: 1.5, method: 'a', req: null }, { kind: 'shutdown!' }]) {
      expect(v.safeParse(MainToEngineSchema, m).success, JSON.stringify(m)).toBe(false);
    }
    expect(v.safeParse(MainToEngineSchema, { kind: 'start', dataDir: '/x', boxKey: new Uint8Array(32) }).success).toBe(true);
  });
});

/** A utility child that never answers, for the host's own bookkeeping (the boot tests use a real one). */
class SilentChild extends EventEmitter implements UtilityChild {
  readonly pid = 4242;
  readonly sent: unknown[] = [];
  postMessage(m: unknown): void {
    this.sent.push(m);
  }
  kill(): boolean {
    this.emit('exit', 137);
    return true;
  }
}

describe('EngineHost', () => {
  it("a first start that fails rejects with the engine's own words; unknown messages are dropped", async () => {
    const child = new SilentChild();
    const logs: string[] = [];
    const host = new EngineHost({ fork: () => child, dataDir: '/d', boxKey: null, log: (_l, line) => logs.push(line) });
    const started = host.start();
    expect(child.sent[0]).toMatchObject({ kind: 'start', dataDir: '/d', boxKey: null });
    child.emit('message', { kind: 'bogus', __proto__: { kind: 'ready' } });
    child.emit('message', { kind: 'boot-failed', message: 'resources/models.json not found' });
    child.emit('exit', 1);
    await expect(started).rejects.toThrow(/models\.json/);
    expect(logs.join()).toMatch(/unknown shape/);
  });

  it('answers unavailable while the engine is away, and fails calls in flight when it dies', async () => {
    const children: SilentChild[] = [];
    const host = new EngineHost({ fork: () => (children.push(new SilentChild()), children.at(-1)!), dataDir: '/d', boxKey: null, log: () => undefined, backoffMs: () => 60_000 });
    const started = host.start();
    children[0]!.emit('message', { kind: 'ready' });
    await started;
    const inFlight = host.invoke('app.info', null);
    children[0]!.emit('exit', 137);
    expect(await inFlight).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    expect(host.state()).toMatchObject({ state: 'restarting', attempt: 1 });
    expect(await host.invoke('app.info', null)).toMatchObject({ ok: false, error: { code: 'unavailable', message: expect.stringMatching(/restarting/) } });
    await host.stop();
  });
});
