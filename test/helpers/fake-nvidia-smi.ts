import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join, delimiter } from 'node:path';
import type { ExecText } from '../../electron/engine/lib/exec-text.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const FAKE_NVIDIA_SMI_DIR = join(root, 'test', 'doubles', 'fake-nvidia-smi');

/** Environment that puts the fake nvidia-smi first on PATH, answering from the named fixture. */
export function fakeNvidiaEnv(fixture: string, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...base, PATH: `${FAKE_NVIDIA_SMI_DIR}${delimiter}${base.PATH ?? ''}`, FAKE_NVIDIA_SMI: fixture };
}

/** PATH with no nvidia-smi at all: only node's own folder and the system basics. */
export function noNvidiaEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...base, PATH: [dirname(process.execPath), '/usr/bin', '/bin'].join(delimiter), FAKE_NVIDIA_SMI: '' };
}

/** An ExecText that runs the real parsing path against the fake nvidia-smi answering from the named fixture. */
export function fakeSmiExec(fixture: string): ExecText {
  const env = fakeNvidiaEnv(fixture);
  return (file, args, timeoutMs) =>
    new Promise((resolve, reject) => {
      execFile(file, args, { env, timeout: timeoutMs }, (error, stdout, stderr) => {
        if (error) reject(Object.assign(error, { stdout: String(stdout), stderr: String(stderr) }));
        else resolve(String(stdout));
      });
    });
}
