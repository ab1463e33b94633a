// Reads one secret line (a password, a mnemonic, the miner key) from stdin: without echo when stdin is a
// terminal, else the first line of the pipe. Secrets never go on the command line, where `ps` shows them.
import type { Readable } from 'node:stream';

interface RawCapable {
  isTTY?: boolean;
  setRawMode?: (raw: boolean) => unknown;
}

export async function readSecretLine(stdin: Readable, prompt: string, stderr: (t: string) => void): Promise<string> {
  const tty = stdin as Readable & RawCapable;
  if (tty.isTTY && typeof tty.setRawMode === 'function') return readFromTerminal(tty as Readable & Required<RawCapable>, prompt, stderr);
  let text = '';
  for await (const chunk of stdin) {
    text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0] ?? '';
}

function readFromTerminal(tty: Readable & Required<RawCapable>, prompt: string, stderr: (t: string) => void): Promise<string> {
  stderr(prompt);
  return new Promise((resolve, reject) => {
    let value = '';
    const done = (err?: Error) => {
      tty.off('data', onData);
      tty.setRawMode(false);
      tty.pause();
      stderr('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of typeof chunk === 'string' ? chunk : chunk.toString('utf8')) {
        if (ch === '\r' || ch === '\n') return done();
        if (ch === '\u0003') return done(new Error('cancelled'));
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    tty.setRawMode(true);
    tty.resume();
    tty.on('data', onData);
  });
}
