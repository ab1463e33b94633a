// The error translator: each system error a user meets becomes a sentence naming the path and the fix.
// (Read-only folders and full disks cannot be made on demand as root in CI: the errors are built here.)
import { describe, expect, it } from 'vitest';
import { describeError, explainFsError } from '../../../electron/engine/lib/fs-errors.ts';

const err = (code: string, path?: string, syscall = 'open') => Object.assign(new Error(`${code}: raw message, ${syscall} '${path}'`), { code, path, syscall });

describe('explainFsError', () => {
  it.each([
    [
      'ENOENT',
      '/x/tokenizer_config.json',
      { what: 'the checkpoint file', fix: 'point --checkpoint at the downloaded model folder' },
      'the checkpoint file /x/tokenizer_config.json does not exist: point --checkpoint at the downloaded model folder.',
    ],
    ['ENOTDIR', '/etc/passwd/x', {}, '/etc/passwd/x is not a folder (it, or a folder above it, is a file): give the path of a folder.'],
    [
      'EACCES',
      '/srv/engy/engine.lock',
      { what: 'the data dir lock' },
      'no permission to write or read the data dir lock /srv/engy/engine.lock: run as the user who owns it, fix its permissions (ls -ld /srv/engy/engine.lock), or choose another --data-dir.',
    ],
    ['EROFS', '/mnt/ro/engy', { what: 'the data dir' }, 'the data dir /mnt/ro/engy is on a read-only file system: choose a writable --data-dir.'],
    ['EEXIST', '/home/u/.config/engy-panel', { what: 'the data dir' }, 'a file is in the way at the data dir /home/u/.config/engy-panel: move it aside, or choose another --data-dir.'],
    ['ENOSPC', '/data/engy/engy-panel.sqlite', {}, 'the disk holding /data/engy/engy-panel.sqlite is full: free some space (df -h /data/engy) and start again.'],
    ['EPIPE', undefined, {}, 'the output was closed before everything was written (a pipe such as `| head` stopped reading).'],
  ] as const)('%s', (code, path, ctx, sentence) => {
    expect(explainFsError(err(code, path), ctx)).toBe(sentence);
  });

  it('leaves other errors alone, and describeError never returns a stack', () => {
    expect(explainFsError(new Error('plain'))).toBeNull();
    expect(explainFsError({ code: 'toString' })).toBeNull();
    expect(explainFsError(null)).toBeNull();
    const e = new Error('first line');
    expect(describeError(e)).toBe('first line');
    expect(describeError('a string')).toBe('a string');
    expect(describeError(err('ENOSPC', '/d/f'))).not.toMatch(/\n\s+at /);
  });
});
