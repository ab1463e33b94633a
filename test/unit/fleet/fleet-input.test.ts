// Hostile input on every fleet path that takes it: the rig address and remote command (which reach an
// ssh argv and the rig's shell), the fleet.* requests, a damaged rigs.json, and half-known rigs' rows.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkRemotePath, parseRemoteCommand, parseRigTarget } from '../../../electron/engine/fleet/rig-target.ts';
import { loadRigs } from '../../../electron/engine/fleet/rig-registry.ts';
import { fleetSnapshot, rigRow } from '../../../electron/engine/fleet/fleet-row.ts';
import { parseRigTopic } from '../../../electron/engine/fleet/rig-topics.ts';
import { classifySshError } from '../../../electron/engine/fleet/ssh.ts';
import { contractAdvice } from '../../../electron/engine/fleet/rig-link.ts';
import { validateRequest } from '../../../electron/contract/validate.ts';
import { rigLinkView } from '../../helpers/rig-link-view.ts';

describe('rig addresses', () => {
  it.each([
    ['op@rig1', { destination: 'op@rig1', port: null }],
    ['op@10.0.0.5:2222', { destination: 'op@10.0.0.5', port: 2222 }],
    ['rack-3', { destination: 'rack-3', port: null }],
    ['op@[::1]:22', { destination: 'op@::1', port: 22 }],
    ['  op@rig1  ', { destination: 'op@rig1', port: null }],
  ])('%s', (raw, want) => expect(parseRigTarget(raw)).toEqual(want));

  it.each(['-oProxyCommand=touch /tmp/x', 'op@-oProxyCommand=x', 'op@rig;rm -rf /', 'op@rig 22', '', 'x'.repeat(301), 'op@rig:0', 'op@rig:70000', '-p', 'op@::1', '@rig', 'o p@rig', 'op@$(id)'])(
    'refuses %j with a sentence saying what to write',
    (raw) => expect(() => parseRigTarget(raw)).toThrow(/is not a rig address: .* Write user@host/),
  );

  it('takes plain command words and paths only (no shell syntax reaches the rig)', () => {
    expect(parseRemoteCommand('/usr/bin/node /opt/engy/bin/engy-panel.mjs')).toEqual(['/usr/bin/node', '/opt/engy/bin/engy-panel.mjs']);
    expect(parseRemoteCommand('~/engy/bin/engy-panel.mjs')).toEqual(['~/engy/bin/engy-panel.mjs']);
    for (const bad of ['engy-panel; rm -rf ~', 'engy-panel $(id)', '-oProxyCommand=x', 'a|b', 'a b c d e f g h i', '`id`', "it's"])
      expect(() => parseRemoteCommand(bad)).toThrow(/must be 1 to 8 words/);
    expect(() => checkRemotePath('/data dir')).toThrow(/one path/);
    expect(() => checkRemotePath('--rotate-token')).toThrow(/one path/);
    expect(checkRemotePath('~/.config/engy-panel')).toBe('~/.config/engy-panel');
  });
});

describe('fleet requests', () => {
  const refused = (method: string, req: unknown) => {
    const r = validateRequest(method as Parameters<typeof validateRequest>[0], req);
    return r.ok ? null : r.error.message;
  };
  it('refuses wrong types, oversized text, unknown actions and prototype keys', () => {
    expect(refused('fleet.addRig', { target: 'op@rig', name: null, command: null, dataDir: null })).toBeNull();
    expect(refused('fleet.addRig', { target: 'x'.repeat(301), name: null, command: null, dataDir: null })).toMatch(/field "target" must be text of at most 300/);
    expect(refused('fleet.addRig', JSON.parse('{"target":"op@rig","name":null,"command":null,"dataDir":null,"__proto__":{"x":1}}'))).toMatch(/unexpected field "__proto__"/);
    expect(refused('fleet.control', { ids: ['abcdef12'], action: 'reboot' })).toMatch(/field "action" must be one of start, stop, drain, start-engine/);
    expect(refused('fleet.control', { ids: [], action: 'stop' })).toMatch(/at least one rig/);
    expect(refused('fleet.control', { ids: ['../../etc'], action: 'stop' })).toMatch(/must be a rig id/);
    expect(refused('fleet.acceptHostKey', { id: 'abcdef12', fingerprints: 'SHA256:x' })).toMatch(/list of fingerprints/);
    expect(refused('fleet.removeRig', { id: 42 })).toMatch(/must be a rig id/);
  });
});

describe('rigs.json', () => {
  const file = (text: string) => {
    const d = mkdtempSync(join(tmpdir(), 'engy-rigs-'));
    writeFileSync(join(d, 'rigs.json'), text);
    return join(d, 'rigs.json');
  };
  it('keeps the entries that parse and says what it dropped', () => {
    const warnings: string[] = [];
    const good = { id: 'abcdef123456', name: 'rig-a', target: 'op@rig', command: 'engy-panel', dataDir: null };
    const rigs = loadRigs(file(JSON.stringify({ rigs: [good, { ...good, id: 'ZZ' }, JSON.parse('{"__proto__":{"id":"x"}}'), good, 5] })), (m) => warnings.push(m));
    expect(rigs).toEqual([good]);
    expect(warnings.length).toBe(4);
  });
  it.each(['not json', '[]', '{"rigs":"x"}', '{}'])('a damaged file (%s) starts with no rigs, with a warning', (text) => {
    const warnings: string[] = [];
    expect(loadRigs(file(text), (m) => warnings.push(m))).toEqual([]);
    expect(warnings.length).toBe(1);
  });
  it('a missing file is an empty fleet, silently', () => {
    const warnings: string[] = [];
    expect(loadRigs('/nonexistent/rigs.json', (m) => warnings.push(m))).toEqual([]);
    expect(warnings).toEqual([]);
  });
});

describe('fleet rows', () => {
  const cfg = { id: 'abcdef123456', name: 'rig-a', target: 'op@rig', command: 'engy-panel', dataDir: null };
  const miner = (phase: string, inflight = 0) => ({
    phase,
    stats: { windowMs: 300_000, ok: 9, errors: 1, acceptanceRate: 0.9, ttftMs: { p99: 800 }, tpotMs: { p99: 40 }, tokensPerSecond: 100, inflight },
    targets: { ttftP99Ms: 100_000, tpotP99Ms: 200, acceptance: 0.95 },
  });

  it.each([
    [['active', 'probing'], 'mining'],
    [['probing'], 'qualifying'],
    [['pulled'], 'withdrawn'],
    [['stopped'], 'stopped'],
  ])('miners %j read as %s', (phases, activity) => {
    const r = rigRow(cfg, rigLinkView({ topics: { miners: phases.map((p) => miner(p)) } }));
    expect(r.activity).toBe(activity);
  });

  it('an unreachable rig keeps its last earnings but shows no live figures', () => {
    const earnings = {
      epochs: [
        { epochIndex: 3, projectedTao: 0.2 },
        { epochIndex: 4, projectedTao: 0.3 },
      ],
      registration: { uid: 7 },
      onChain: null,
      totals: { day: { projectedTao: 0.5, realisedTao: 0 }, week: { projectedTao: 2, realisedTao: 0 } },
    };
    const r = rigRow(cfg, rigLinkView({ link: 'unreachable', unreachableSince: 5, topics: { miners: [miner('active', 3)], earnings } }));
    expect(r).toMatchObject({ activity: 'unreachable', unreachableSince: 5, tokensPerSecond: null, inflight: 0, uid: 7, epochTao: 0.3, todayTao: 0.5, weekTao: 2 });
  });

  it('totals are the sums of the rows', () => {
    const a = rigRow(
      cfg,
      rigLinkView({
        topics: {
          miners: [miner('active')],
          earnings: { epochs: [], registration: null, onChain: null, totals: { day: { projectedTao: 0.25, realisedTao: 0 }, week: { projectedTao: 1, realisedTao: 0 } } },
        },
      }),
    );
    const b = rigRow({ ...cfg, id: 'abcdef654321', name: 'rig-b' }, rigLinkView({ link: 'engine-down' }));
    expect(fleetSnapshot([a, b]).totals).toEqual({ rigs: 2, earners: 2, online: 1, todayTao: 0.25, weekTao: 1, tokensPerSecond: 100, openAlerts: 0 });
  });

  it('refuses snapshots of the wrong shape (strings for numbers, NaN, missing fields, huge arrays)', () => {
    expect(parseRigTopic('miners', [{ ...miner('active'), stats: { ...miner('active').stats, ok: '9' } }]).ok).toBe(false);
    expect(
      parseRigTopic(
        'miners',
        Array.from({ length: 65 }, () => miner('active')),
      ).ok,
    ).toBe(false);
    expect(parseRigTopic('earnings', { epochs: 'x' }).ok).toBe(false);
    expect(parseRigTopic('notifications', { recent: [{ id: 1, active: true, severity: 'error', title: 'x'.repeat(501), body: '', at: 1, kind: 'k' }] }).ok).toBe(false);
    expect(parseRigTopic('serve', null)).toEqual({ ok: true, value: null });
  });
});

describe('ssh errors and contract versions', () => {
  it('say what happened and what to do', () => {
    expect(classifySshError('@@@ WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! @@@', 'rig-a').kind).toBe('host-key-changed');
    expect(classifySshError('No ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict checking.\nHost key verification failed.', 'rig-a').kind).toBe('host-key-unknown');
    expect(classifySshError('op@rig: Permission denied (publickey).', 'rig-a').sentence).toMatch(/authorized_keys/);
    expect(classifySshError('ssh: connect to host 10.0.0.9 port 22: Connection refused', 'rig-a')).toMatchObject({ kind: 'unreachable', sentence: expect.stringMatching(/Connection refused/) });
    expect(contractAdvice(0, 1, 'rig-a')).toMatch(/update engy-panel on the rig/);
    expect(contractAdvice(2, 1, 'rig-a')).toMatch(/update this panel/);
  });
});
