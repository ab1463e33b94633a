// The shared action runner behind useAction: every failed Result and every thrown call becomes the
// shown sentence; busy follows overlapping calls; a success clears nothing another call reported.
import { describe, expect, it } from 'vitest';
import type { EngineApi } from '../../../shared/api.ts';
import { err, ok } from '../../../shared/result.ts';
import { actionRunner, type ActionState } from '../../../renderer/src/features/common/use-action.tsx';

function harness(invoke: (method: string, req: unknown) => Promise<unknown>) {
  let state: ActionState = { busy: false, error: null };
  const api = { invoke, on: () => () => {} } as unknown as EngineApi;
  const runner = actionRunner(
    (next) => {
      state = next(state);
    },
    () => api,
  );
  return { runner, state: () => state };
}

describe('actionRunner', () => {
  it('shows a refused Result as its sentence and resolves the Result', async () => {
    const h = harness(async () => err('bad-request', 'Poll interval must be at least 30 s.'));
    const r = await h.runner.invoke('settings.update', { validating: { pollSeconds: 0 } });
    expect(r.ok).toBe(false);
    expect(h.state()).toEqual({ busy: false, error: 'Poll interval must be at least 30 s.' });
  });

  it('clears the previous error when a new call starts and succeeds', async () => {
    let answer: unknown = err('conflict', 'first failed');
    const h = harness(async () => answer);
    await h.runner.invoke('checkpoint.download', null);
    expect(h.state().error).toBe('first failed');
    answer = ok(null);
    await h.runner.invoke('checkpoint.download', null);
    expect(h.state()).toEqual({ busy: false, error: null });
  });

  it('turns a thrown call (engine not connected) into a shown sentence and a failed Result', async () => {
    const h = harness(() => Promise.reject(new Error('engine store not connected')));
    const r = await h.runner.invoke('checkpoint.refresh', null);
    expect(r).toMatchObject({ ok: false, error: { code: 'unavailable' } });
    expect(h.state().error).toMatch(/did not answer.*engine store not connected/);
    expect(h.state().busy).toBe(false);
  });

  it('keeps busy while any call is in flight and keeps a failure reported by an overlapping call', async () => {
    const gates: Array<(v: unknown) => void> = [];
    const h = harness(() => new Promise((resolve) => gates.push(resolve)));
    const a = h.runner.invoke('wallet.registration', null);
    const b = h.runner.invoke('wallet.registration', null);
    expect(h.state().busy).toBe(true);
    gates[0]!(err('chain-unreachable', 'The chain does not answer.'));
    await a;
    expect(h.state()).toEqual({ busy: true, error: 'The chain does not answer.' });
    gates[1]!(ok(null));
    await b;
    expect(h.state()).toEqual({ busy: false, error: 'The chain does not answer.' });
  });

  it('runs multi-call steps and clears on request', async () => {
    const h = harness(async () => ok(null));
    await h.runner.run(async () => 'Type the same password twice.');
    expect(h.state().error).toBe('Type the same password twice.');
    await h.runner.run(() => Promise.reject('a thrown string'));
    expect(h.state().error).toMatch(/a thrown string/);
    h.runner.clear();
    expect(h.state().error).toBeNull();
  });
});
