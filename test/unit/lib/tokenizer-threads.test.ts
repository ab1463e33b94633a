import { describe, expect, it } from 'vitest';
import { serialTokenizerBatches, withoutOwnTokenizerSetting } from '../../../electron/engine/lib/tokenizer-threads.ts';

describe('the native tokenizer without Rayon threads (TOKENIZERS_PARALLELISM)', () => {
  it('sets the variable where the user did not, and children do not inherit it', () => {
    const env: NodeJS.ProcessEnv = { PATH: '/usr/bin', HOME: '/home/miner' };
    expect(serialTokenizerBatches(env)).toBe(true);
    expect(env.TOKENIZERS_PARALLELISM).toBe('false');
    const child = withoutOwnTokenizerSetting(env);
    expect(child).toEqual({ PATH: '/usr/bin', HOME: '/home/miner' });
    // This process keeps its own setting: only the child's copy is without it.
    expect(env.TOKENIZERS_PARALLELISM).toBe('false');
    // A second call changes nothing and says so.
    expect(serialTokenizerBatches(env)).toBe(false);
    expect(withoutOwnTokenizerSetting(env).TOKENIZERS_PARALLELISM).toBeUndefined();
  });

  it("keeps the user's own value either way, for this process and its children", () => {
    for (const value of ['true', 'false', '', '__proto__']) {
      const env: NodeJS.ProcessEnv = { TOKENIZERS_PARALLELISM: value };
      expect(serialTokenizerBatches(env)).toBe(false);
      expect(env.TOKENIZERS_PARALLELISM).toBe(value);
      const child = withoutOwnTokenizerSetting(env);
      expect(child).toBe(env);
      expect(child.TOKENIZERS_PARALLELISM).toBe(value);
    }
  });

  it('gives a child the value the user set later, over the one set here', () => {
    const env: NodeJS.ProcessEnv = {};
    serialTokenizerBatches(env);
    env.TOKENIZERS_PARALLELISM = 'true';
    expect(withoutOwnTokenizerSetting(env).TOKENIZERS_PARALLELISM).toBe('true');
  });

  it('copies an environment with prototype-named keys as plain data', () => {
    const env = JSON.parse('{"__proto__": "x", "constructor": "y", "PATH": "/bin"}') as NodeJS.ProcessEnv;
    serialTokenizerBatches(env);
    const child = withoutOwnTokenizerSetting(env);
    expect(Object.keys(child).sort()).toEqual(['PATH', '__proto__', 'constructor']);
    expect(Object.getPrototypeOf(child)).toBe(Object.prototype);
    expect(child.TOKENIZERS_PARALLELISM).toBeUndefined();
  });
});
