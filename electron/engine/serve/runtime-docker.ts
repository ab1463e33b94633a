import type { DockerRuntimeProbe } from '../../../shared/serve.ts';
import { execText, type ExecText } from '../lib/exec-text.ts';

function said(e: unknown): string {
  const err = e as Error & { stderr?: string };
  return (err.stderr ?? '').trim().split('\n')[0] || err.message.split('\n')[0] || 'unknown error';
}

/** Is Docker usable (daemon reachable, NVIDIA runtime, image pulled)? Never throws. */
export async function probeDocker(docker: string, image: string, exec: ExecText = execText): Promise<DockerRuntimeProbe> {
  const base = { docker, image, nvidiaRuntime: null, imagePresent: false };
  let serverVersion: string;
  try {
    serverVersion = (await exec(docker, ['version', '--format', '{{.Server.Version}}'], 15_000)).trim();
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const problem =
      err.code === 'ENOENT'
        ? 'Docker is not installed.'
        : /permission denied/i.test(said(e))
          ? 'Docker is installed but this user may not use it: add the user to the docker group, then log in again.'
          : /Cannot connect to the Docker daemon|Is the docker daemon running/i.test(said(e))
            ? 'Docker is installed but its daemon is not running: start it (sudo systemctl start docker, or open Docker Desktop), then check again.'
            : `Docker is installed but its daemon does not answer (it said: ${said(e)}): start or restart Docker, then check again.`;
    return { ...base, available: false, serverVersion: null, problem };
  }
  let nvidiaRuntime: boolean | null = null;
  try {
    const runtimes = await exec(docker, ['info', '--format', '{{json .Runtimes}}'], 15_000);
    nvidiaRuntime = /nvidia/i.test(runtimes) ? true : null;
  } catch {
    // Unknown: `--gpus` may still work through CDI.
  }
  let imagePresent = false;
  try {
    await exec(docker, ['image', 'inspect', '--format', '{{.Id}}', image], 15_000);
    imagePresent = true;
  } catch {
    // Not pulled yet: `docker run` pulls it (about 20 GB) on first start.
  }
  const problem = nvidiaRuntime === null ? 'Docker does not list the NVIDIA runtime: install the NVIDIA Container Toolkit if GPU containers fail to start.' : null;
  return { docker, image, available: true, serverVersion: serverVersion || null, nvidiaRuntime, imagePresent, problem };
}
