import { describe, expect, it } from 'vitest';
import { PassThrough, Readable } from 'node:stream';
import { readSecretLine } from '../../../electron/cli/read-secret.ts';

describe('readSecretLine', () => {
  it('takes the first line of a pipe', async () => {
    expect(await readSecretLine(Readable.from(['s3cret\nnext line\n']), 'pw: ', () => {})).toBe('s3cret');
    expect(await readSecretLine(Readable.from(['no newline']), 'pw: ', () => {})).toBe('no newline');
  });

  it('reads a terminal in raw mode without echoing, honouring backspace, and restores the mode', async () => {
    // TERMINAL DOUBLE: a stream with the tty.ReadStream raw-mode switch.
    const modes: boolean[] = [];
    const tty = Object.assign(new PassThrough(), { isTTY: true, setRawMode: (raw: boolean) => modes.push(raw) });
    let shown = '';
    const line = readSecretLine(tty, 'Password: ', (t) => (shown += t));
    tty.write('pa');
    tty.write('sx\u007fs\r');
    expect(await line).toBe('pass');
    expect(shown).toBe('Password: \n');
    expect(modes).toEqual([true, false]);
  });

  it('rejects on Ctrl-C', async () => {
    const tty = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
    const line = readSecretLine(tty, 'pw: ', () => {});
    tty.write('ab\u0003');
    await expect(line).rejects.toThrow(/cancelled/);
  });
});
