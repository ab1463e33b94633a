import type { PythonRuntimeProbe, RuntimeReport } from '../../../shared/serve.ts';
import type { ExecText } from '../lib/exec-text.ts';
import { PINNED_DOCKER_IMAGE } from './launch-plan.ts';
import { probeDocker } from './runtime-docker.ts';
import { probePython, pythonCandidates } from './runtime-python.ts';

export interface DetectRuntimesOptions {
  dataDir: string;
  /** The user's interpreter, tried first. */
  python?: string | null;
  /** Replaces the whole candidate list (tests point it at doubles). */
  pythonCandidates?: string[];
  docker?: string;
  image?: string;
  exec?: ExecText;
}

function best(probes: PythonRuntimeProbe[]): PythonRuntimeProbe | null {
  return probes.find((p) => p.sglangVersion !== null && p.supported) ?? probes.find((p) => p.sglangVersion !== null) ?? null;
}

/** What can run sglang here, which one to use, and what is missing for the rest. */
export async function detectRuntimes(opts: DetectRuntimesOptions): Promise<RuntimeReport> {
  const candidates = opts.pythonCandidates ?? pythonCandidates(opts.dataDir, opts.python);
  const pythonTried: PythonRuntimeProbe[] = [];
  for (const c of candidates) {
    const p = await probePython(c, opts.exec);
    pythonTried.push(p);
    if (p.sglangVersion !== null && p.supported) break;
  }
  const python = best(pythonTried);
  const docker = await probeDocker(opts.docker ?? 'docker', opts.image ?? PINNED_DOCKER_IMAGE, opts.exec);
  const notes: string[] = [];
  let recommended: RuntimeReport['recommended'] = null;
  if (python?.supported) {
    recommended = 'python';
    notes.push(`Python ${python.pythonVersion ?? ''} at ${python.python} has sglang ${python.sglangVersion}: the panel runs it directly.`);
  } else if (docker.available) {
    recommended = 'docker';
    notes.push(`Docker ${docker.serverVersion ?? ''} is available: the panel runs ${docker.image}${docker.imagePresent ? '' : ' (pulled on first start, about 20 GB)'}.`);
  } else if (python) {
    recommended = 'python';
    notes.push(`Python at ${python.python} has sglang ${python.sglangVersion}, which the panel's trim does not know: it will run, but answers will be much larger.`);
  }
  if (!python) {
    const hasBase = pythonTried.some((p) => p.pythonVersion !== null);
    notes.push(
      hasBase
        ? 'No Python here has sglang. The panel can create its own environment and install the pinned sglang into it (several GB).'
        : 'No Python 3 found: install Python 3.10-3.12 (with venv), or use Docker.',
    );
  } else if (python.problem && recommended !== 'python') notes.push(python.problem);
  if (!docker.available && docker.problem) notes.push(docker.problem);
  else if (docker.available && docker.problem) notes.push(docker.problem);
  if (recommended === null) notes.push('Or point the panel at a serve you already run (external mode): it will only watch it.');
  return { python, pythonTried, docker, recommended, notes };
}
