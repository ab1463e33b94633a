import { describe, expect, it } from 'vitest';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..', '..');
const { check, required } = createRequire(import.meta.url)(join(root, 'scripts', 'check-node.cjs')) as {
  check: (found: string, need?: number[]) => string | null;
  required: () => number[];
};

describe('the Node version check run before npm install, start and test', () => {
  it('takes its minimum from package.json engines (one home for the fact)', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string }; scripts: Record<string, string> };
    expect(pkg.engines.node).toBe(`>=${required().slice(0, 2).join('.')}`);
    for (const s of ['preinstall', 'prestart', 'pretest']) expect(pkg.scripts[s]).toBe('node scripts/check-node.cjs');
  });

  it('says in one sentence what was found, what is needed and how to get it', () => {
    const msg = check('20.11.0', [22, 18, 0])!;
    expect(msg).toContain('Node.js 22.18 or newer');
    expect(msg).toContain('this is Node.js 20.11.0');
    expect(msg).toContain('nvm install 24');
    expect(msg.split('\n')).toHaveLength(1);
    expect(check('22.17.9', [22, 18, 0])).not.toBeNull();
    expect(check('garbage', [22, 18, 0])).not.toBeNull();
  });

  it('passes Node 22.18 and newer', () => {
    for (const v of ['22.18.0', '22.20.1', '23.0.0', '24.11.1', '30.0.0']) expect(check(v, [22, 18, 0])).toBeNull();
    expect(check(process.versions.node)).toBeNull();
  });
});
