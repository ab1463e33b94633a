import { spawnSync } from 'node:child_process';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../../electron/cli/toploc.ts';
import { loadToplocVectors, type BuildCase, type VerifyCase } from '../../helpers/toploc-fixtures.ts';

async function cli(args: string[], input: unknown): Promise<{ code: number; out: unknown; err: string }> {
  let out = '';
  let err = '';
  const code = await run(args, {
    stdin: Readable.from([JSON.stringify(input)]),
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    env: {},
    stopSignal: new Promise(() => undefined),
  });
  return { code, out: out ? JSON.parse(out) : null, err };
}

describe('engy-panel toploc', () => {
  const builds = loadToplocVectors<{ cases: BuildCase[] }>('build_proofs').cases;
  const verifies = loadToplocVectors<{ cases: VerifyCase[] }>('verify_proofs').cases;

  it("build prints every case's proofs exactly (generator spec included)", async () => {
    for (const c of builds) {
      const r = await cli(['build'], c);
      expect(r.code, c.id).toBe(0);
      expect(r.out, c.id).toEqual({ proofs_base64: c.proofs_base64 });
    }
  });

  it('verify prints the reference results (C++ path with skip_prefill, Python path without)', async () => {
    for (const c of verifies) {
      const r = await cli(['verify'], c);
      expect(r.code, c.id).toBe(0);
      expect(r.out, c.id).toEqual({ results: c.results_cpp_tensor_path ?? c.results_python_list_path });
      const py = await cli(['verify', '--semantics', 'python'], c);
      expect(py.out, c.id).toEqual({ results: c.results_python_list_path });
    }
  });

  it('bf16 prints the conversion vectors', async () => {
    const v = loadToplocVectors<{ values: { f32: string; bf16: string }[] }>('bf16_conversion').values;
    const r = await cli(['bf16'], { f32: v.map((x) => x.f32) });
    expect(r.out).toEqual({ bf16: v.map((x) => x.bf16) });
  });

  it('explains bad input and exits 2', async () => {
    expect((await cli(['build'], { topk: 128 })).code).toBe(2);
    expect((await cli(['bf16'], { f32: ['zz'] })).err).toMatch(/not a float32 bit pattern/);
    expect((await cli(['frobnicate'], {})).code).toBe(2);
  });

  it('runs as a real process through bin/engy-panel.mjs', () => {
    const c = builds.find((x) => x.id === 'b_h2048_n1000')!;
    const root = join(import.meta.dirname, '..', '..', '..');
    const p = spawnSync(process.execPath, [join(root, 'bin', 'engy-panel.mjs'), 'toploc', 'build'], {
      input: JSON.stringify(c),
      env: { ...process.env, ENGY_FROM_SOURCE: '1' },
      encoding: 'utf8',
    });
    expect(p.stderr).toBe('');
    expect(JSON.parse(p.stdout)).toEqual({ proofs_base64: c.proofs_base64 });
  });
});
