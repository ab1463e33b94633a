import { Readable } from 'node:stream';
import type { CliIo } from '../../electron/cli/types.ts';

/** A CliIo that records stdout/stderr and feeds `stdin`; the stop signal never fires. */
export function recordingIo(stdin = '', env: NodeJS.ProcessEnv = {}): CliIo & { out: string; err: string } {
  const r = {
    out: '',
    err: '',
    stdin: Readable.from([stdin]),
    stdout: (t: string) => void (r.out += t),
    stderr: (t: string) => void (r.err += t),
    env,
    stopSignal: new Promise<string>(() => {}),
  };
  return r;
}
