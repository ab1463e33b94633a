// A checkpoint folder is green only when it exists or can be created, is writable, and has room
// for the download; 75.6 GiB free against the ~80 GiB needed is not green.
import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkFolderSpace } from '../../../electron/engine/serve/checkpoint/folder-space.ts';

const GiB = 1024 ** 3;
const NEED = 80 * GiB;
const dirs: string[] = [];
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'engy-folder-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) {
    chmodSync(d, 0o700);
    rmSync(d, { recursive: true, force: true });
  }
});

describe('checkpoint folder space', () => {
  it('refuses 75.6 GiB free against 80 GiB, with how much to free', () => {
    const v = checkFolderSpace({ dir: temp(), needBytes: NEED, freeBytes: () => 75.6 * GiB });
    expect(v).toMatchObject({ ok: false, usable: true });
    expect(v.sentence).toMatch(/75\.6 GiB free .* needs about 80\.0 GiB: free 4\.4 GiB/);
  });

  it('names the files beside the larger free-space ask, so the two figures do not read as a contradiction', () => {
    const v = checkFolderSpace({ dir: temp(), needBytes: NEED, filesBytes: 35e9, freeBytes: () => 75.6 * GiB });
    expect(v).toMatchObject({ ok: false, usable: true, needBytes: NEED });
    expect(v.sentence).toContain('a first download asks for 80.0 GiB free (the files are about 35 GB;');
    expect(v.sentence).toContain('The download itself checks the exact size and starts when the files fit.');
    const roomy = checkFolderSpace({ dir: temp(), needBytes: NEED, filesBytes: 35e9, freeBytes: () => 200 * GiB });
    expect(roomy.ok).toBe(true);
    expect(roomy.sentence).toContain('200.0 GiB free, a first download asks for 80.0 GiB free (the files are about 35 GB;');
  });

  it('accepts a folder that does not exist yet when its parent has room, and says it will be created', () => {
    const v = checkFolderSpace({ dir: join(temp(), 'a', 'b'), needBytes: NEED, freeBytes: () => 200 * GiB });
    expect(v).toMatchObject({ ok: true, exists: false });
    expect(v.sentence).toContain('will be created');
  });

  it('needs no room for a folder that already holds a complete checkpoint', () => {
    const d = temp();
    writeFileSync(join(d, 'config.json'), '{}');
    writeFileSync(join(d, 'model.safetensors'), 'x');
    const v = checkFolderSpace({ dir: d, needBytes: NEED, freeBytes: () => 1 });
    expect(v).toMatchObject({ ok: true, complete: true });
  });

  it('refuses relative paths, files, and folders this user cannot write', () => {
    expect(checkFolderSpace({ dir: 'relative/path', needBytes: NEED }).sentence).toContain('not a full path');
    const d = temp();
    writeFileSync(join(d, 'file'), 'x');
    expect(checkFolderSpace({ dir: join(d, 'file'), needBytes: NEED }).sentence).toContain('is a file');
    if (process.getuid?.() !== 0) {
      const ro = join(d, 'ro');
      mkdirSync(ro);
      chmodSync(ro, 0o500);
      const v = checkFolderSpace({ dir: join(ro, 'sub'), needBytes: NEED, freeBytes: () => 500 * GiB });
      expect(v).toMatchObject({ ok: false, usable: false });
      expect(v.sentence).toContain('cannot be written');
      chmodSync(ro, 0o700);
    }
  });

  it('reads the real free space when not told', () => {
    const v = checkFolderSpace({ dir: temp(), needBytes: 1 });
    expect(v.ok).toBe(true);
    expect(v.freeBytes).toBeGreaterThan(0);
  });
});
