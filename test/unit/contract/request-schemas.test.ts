// The contract validator built on shared/contract-schemas.ts: refusals name the exact field and say
// what is allowed, prototype-named keys are unexpected fields, methods are looked up as own properties
// only, and nothing a user typed (a password, a mnemonic) comes back in a refusal.
import { describe, expect, it } from 'vitest';
import { INVOKE_METHODS } from '../../../shared/api.ts';
import { REQUEST_SCHEMAS } from '../../../shared/contract-schemas.ts';
import { validateRequest } from '../../../electron/contract/validate.ts';

function refusal(method: string, req: unknown): string {
  const r = validateRequest(method as Parameters<typeof validateRequest>[0], req);
  if (r.ok) throw new Error(`${method} accepted ${JSON.stringify(req)}`);
  return r.error.message;
}

describe('contract request schemas', () => {
  it('have exactly one schema per contract method', () => {
    expect(Object.keys(REQUEST_SCHEMAS).sort()).toEqual([...INVOKE_METHODS].sort());
  });

  it('name the field and what it allows', () => {
    expect(refusal('history.requests', { limit: 1e9 })).toBe('The request to "history.requests" was refused: field "limit" must be a whole number from 1 to 10000.');
    expect(refusal('history.count', { outcome: 'all' })).toMatch(/field "outcome" must be "ok", "error" or "cancelled"/);
    expect(refusal('wallet.createHotkey', { wallet: '../x', hotkey: 'h' })).toMatch(/field "wallet" must be a name of letters/);
    expect(refusal('history.series', {})).toMatch(/field "windowMs" is missing/);
    expect(refusal('wallet.registerWithBrowser', { mode: 'register-limit' })).toMatch(/field "limitTao" is missing/);
    expect(refusal('serve.detectRuntimes', { refresh: 'yes' })).toMatch(/field "refresh" must be true or false/);
    expect(refusal('mining.stop', { force: true })).toMatch(/expected no arguments/);
    // The live GPU panel's lease takes nothing: no pace, no duration a client could set.
    for (const req of [{ leaseMs: 1 }, 1_000, 'fast', JSON.parse('{"__proto__": {"leaseMs": 1}}')]) expect(refusal('gpus.watch', req)).toMatch(/expected no arguments/);
    expect(validateRequest('gpus.watch', null).ok).toBe(true);
    // Start takes one optional flag, nothing else, and never a non-boolean for it.
    expect(refusal('mining.start', { force: true })).toMatch(/unexpected field "force"/);
    expect(refusal('mining.start', { skipRehearsal: 'yes' })).toMatch(/must be true or false/);
    expect(refusal('mining.start', JSON.parse('{"__proto__": {"skipRehearsal": true}}'))).toMatch(/unexpected field/);
    expect(refusal('logs.recent', [1, 2])).toMatch(/expected an object/);
    expect(refusal('logs.recent', 'limit=5')).toMatch(/expected an object/);
  });

  it('refuses prototype-named and unknown keys as unexpected fields', () => {
    for (const key of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'prototype']) {
      const req = JSON.parse(`{"limit": 5, ${JSON.stringify(key)}: {"limit": 1}}`) as unknown;
      expect(refusal('history.audits', req)).toContain(`unexpected field "${key}"`);
    }
    expect(refusal('history.audits', { limit: 5, ['x'.repeat(500)]: 1 })).toContain(`unexpected field "${'x'.repeat(64)}"`);
  });

  it('looks methods up as own properties and refuses non-string methods', () => {
    for (const m of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'x'.repeat(300)]) {
      const r = validateRequest(m as 'app.info', null);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.code).toBe('unknown-method');
    }
    for (const m of [42, null, undefined, {}, ['app.info']]) {
      const r = validateRequest(m as unknown as 'app.info', null);
      expect(r).toMatchObject({ ok: false, error: { code: 'unknown-method' } });
    }
  });

  it('bounds strings and never quotes a secret back', () => {
    const words = 'abandon '.repeat(200);
    const m1 = refusal('wallet.importColdkey', { wallet: 'w', secret: words, password: 'hunter2hunter2' });
    expect(m1).toMatch(/field "secret" must be at most 1024 characters/);
    expect(m1).not.toContain('abandon');
    expect(m1).not.toContain('hunter2');
    expect(refusal('wallet.createColdkey', { wallet: 'w', password: '   ' })).toMatch(/field "password" must have at least 1 characters besides spaces/);
    expect(refusal('checkpoint.checkFolder', { dir: 'd'.repeat(5000) })).toMatch(/field "dir" must be text of at most 4096 characters/);
  });

  it("answers with only the fields it knows (a fresh object, not the caller's)", () => {
    const req = { wallet: 'default', hotkey: 'miner1' };
    const r = validateRequest('wallet.createHotkey', req);
    expect(r).toEqual({ ok: true, value: req });
    if (r.ok) expect(r.value).not.toBe(req);
    expect(validateRequest('app.info', undefined)).toEqual({ ok: true, value: null });
  });

  it('leaves settings patches to the settings schema but refuses non-objects', () => {
    expect(validateRequest('settings.update', { theme: 'dark' }).ok).toBe(true);
    expect(refusal('settings.update', ['theme'])).toMatch(/expected an object of settings to change/);
  });

  it("a rig full panel: watch takes a rig id and a flag; rigInvoke only a method a rig answers (never fleet.*), the request is the rig's to check", () => {
    const id = 'abcdef012345';
    expect(validateRequest('fleet.watch', { id }).ok).toBe(true);
    expect(validateRequest('fleet.watch', { id, fresh: true }).ok).toBe(true);
    expect(refusal('fleet.watch', { id: '../../etc' })).toMatch(/field "id" must be a rig id/);
    expect(refusal('fleet.watch', { id, fresh: 'yes' })).toMatch(/field "fresh" must be true or false/);
    expect(refusal('fleet.watch', JSON.parse(`{"id":"${id}","__proto__":{"fresh":true}}`))).toMatch(/unexpected field "__proto__"/);
    expect(refusal('fleet.watch', null)).toMatch(/expected an object/);
    expect(validateRequest('fleet.rigInvoke', { id, method: 'mining.stop', req: null }).ok).toBe(true);
    expect(validateRequest('fleet.rigInvoke', { id, method: 'settings.update', req: { theme: 'dark' } }).ok).toBe(true);
    for (const method of ['fleet.addRig', 'fleet.rigInvoke', 'fleet.watch', 'constructor', '__proto__', 'no.such', 'x'.repeat(100), 42]) {
      expect(refusal('fleet.rigInvoke', { id, method, req: null })).toMatch(/field "method" must be/);
    }
    expect(refusal('fleet.rigInvoke', { id, method: 'mining.stop' })).toMatch(/field "req" is missing/);
    expect(refusal('fleet.rigInvoke', { id, method: 'mining.stop', req: null, token: 'x' })).toMatch(/unexpected field "token"/);
  });
});
