import { join } from 'node:path';
import type { PythonRuntimeProbe } from '../../../shared/serve.ts';
import { execText, type ExecText } from '../lib/exec-text.ts';
import { SUPPORTED_SGLANG_VERSIONS } from './trim-module.ts';

export const VENV_DIR_NAME = 'sglang-venv';

export function appVenvDir(dataDir: string): string {
  return join(dataDir, VENV_DIR_NAME);
}

export function venvPython(venvDir: string): string {
  return process.platform === 'win32' ? join(venvDir, 'Scripts', 'python.exe') : join(venvDir, 'bin', 'python');
}

/** Interpreters to try, best first: the user's choice, the app's own venv, then what PATH offers. */
export function pythonCandidates(dataDir: string, configured?: string | null): string[] {
  const list = [configured ?? null, venvPython(appVenvDir(dataDir)), 'python3', 'python'].filter((p): p is string => !!p);
  return [...new Set(list)];
}

function lastLine(text: string): string {
  return (
    text
      .trim()
      .split('\n')
      .filter((l) => l.trim().length > 0)
      .at(-1)
      ?.trim() ?? ''
  );
}

/** Asks one interpreter for its version and its sglang's. Never throws. */
export async function probePython(python: string, exec: ExecText = execText): Promise<PythonRuntimeProbe> {
  let pythonVersion: string | null;
  try {
    pythonVersion = (await exec(python, ['--version'], 10_000)).trim().replace(/^Python\s+/, '') || null;
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const problem = err.code === 'ENOENT' ? `${python} is not installed` : `${python} does not run: ${lastLine(err.message)}`;
    return { python, pythonVersion: null, sglangVersion: null, supported: false, problem };
  }
  try {
    const v = (await exec(python, ['-c', 'import sglang; print(sglang.__version__)'], 120_000)).trim().split('\n').at(-1)?.trim() ?? '';
    const supported = SUPPORTED_SGLANG_VERSIONS.includes(v);
    const problem = supported
      ? null
      : `sglang ${v} is not a version the panel's hidden-states trim knows (${SUPPORTED_SGLANG_VERSIONS.join(', ')}): it would serve untrimmed, with much larger answers`;
    return { python, pythonVersion, sglangVersion: v || null, supported, problem };
  } catch (e) {
    const err = e as Error & { stderr?: string };
    const said = lastLine(err.stderr ?? '') || lastLine(err.message);
    return { python, pythonVersion, sglangVersion: null, supported: false, problem: `sglang is not installed for ${python} (${said})` };
  }
}
