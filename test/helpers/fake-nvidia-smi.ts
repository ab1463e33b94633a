import { fileURLToPath } from 'node:url';
import { dirname, join, delimiter } from 'node:path';

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
