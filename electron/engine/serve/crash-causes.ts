import type { ServeCause, ServeCauseCode, ServeStartPhase } from '../../../shared/serve.ts';

type CauseText = Omit<ServeCause, 'evidence'>;

/** Plain-words explanation of each cause. `retryable: false` stops the restart loop. */
export const CAUSES: Record<ServeCauseCode, CauseText> = {
  'cuda-oom-load': {
    code: 'cuda-oom-load',
    cause: 'The GPU ran out of memory while loading the model weights.',
    fix: 'Close other programs using the GPU (nvidia-smi lists them) or use more or larger GPUs; this card cannot hold the weights as planned.',
    retryable: false,
  },
  'cuda-oom-graph': {
    code: 'cuda-oom-graph',
    cause: 'The GPU ran out of memory while capturing CUDA graphs, after the weights and cache were placed.',
    fix: 'Lower the memory fraction by 0.02-0.05 (--mem-fraction-static) or lower --cuda-graph-max-bs, then start again.',
    retryable: false,
  },
  'not-enough-memory': {
    code: 'not-enough-memory',
    cause: 'After loading the weights there was no memory left for the KV cache at this memory fraction.',
    fix: 'Raise --mem-fraction-static (counter-intuitively), free the GPU of other processes, or use more GPUs.',
    retryable: false,
  },
  'nvcc-missing': {
    code: 'nvcc-missing',
    cause: 'sglang needed to compile GPU kernels at run time and the CUDA compiler (nvcc) failed or is missing.',
    fix: 'Install the CUDA toolkit (a -devel image for Docker) and set CUDA_HOME, or turn the JIT off with SGLANG_ENABLE_JIT_DEEPGEMM=0 / --fp8-gemm-backend cutlass.',
    retryable: false,
  },
  'port-in-use': {
    code: 'port-in-use',
    cause: 'Another program already listens on the port this engine was told to use.',
    fix: 'Stop the other program or choose another port, then start again.',
    retryable: false,
  },
  'fp8-unsupported': {
    code: 'fp8-unsupported',
    cause: 'This GPU cannot run FP8 kernels (it needs compute capability 8.9 or newer: Ada, Hopper, Blackwell).',
    fix: 'Use an RTX 4090/5090, L40S, RTX 6000 Ada, H100/H200 or B200; older cards such as A100 or RTX 3090 cannot serve this checkpoint.',
    retryable: false,
  },
  'p2p-nccl': {
    code: 'p2p-nccl',
    cause: 'The GPUs could not talk to each other directly (peer-to-peer / NCCL failed), common on consumer cards.',
    fix: 'Add --disable-custom-all-reduce and set NCCL_P2P_DISABLE=1, or run one engine per GPU when the model fits on one card.',
    retryable: false,
  },
  'driver-too-old': {
    code: 'driver-too-old',
    cause: 'The NVIDIA driver is older than the CUDA version this sglang build needs.',
    fix: 'Upgrade the NVIDIA driver (CUDA 12.8 needs 570+, CUDA 13 needs 580+) or use an image built for an older CUDA.',
    retryable: false,
  },
  'model-path-missing': {
    code: 'model-path-missing',
    cause: 'sglang could not find the checkpoint folder (or its config.json).',
    fix: 'Download the checkpoint first, or point the panel at the folder that holds config.json and the .safetensors files.',
    retryable: false,
  },
  'hidden-states-disabled': {
    code: 'hidden-states-disabled',
    cause: 'The serve was started without --enable-return-hidden-states, so it cannot return the hidden states the proofs need.',
    fix: 'Restart the serve with --enable-return-hidden-states.',
    retryable: false,
  },
  'watchdog-timeout': {
    code: 'watchdog-timeout',
    cause: 'One forward pass took longer than sglang allows (its watchdog killed the server), usually a first-time kernel compile.',
    fix: 'Restarting usually helps once the kernel cache is warm; if it repeats, raise --watchdog-timeout.',
    retryable: true,
  },
  killed: {
    code: 'killed',
    cause: 'The serve was killed from outside (often the system ran out of RAM and the kernel killed it).',
    fix: 'Check free RAM (dmesg shows oom-kill); lower --max-running-requests if it keeps happening.',
    retryable: true,
  },
  stalled: {
    code: 'stalled',
    cause: 'The serve had requests running but produced no tokens for several minutes: it is wedged.',
    fix: 'The panel restarts it; if it repeats, check the GPU (nvidia-smi) and the driver logs.',
    retryable: true,
  },
  'never-ready': {
    code: 'never-ready',
    cause: 'The serve did not become ready in the time allowed.',
    fix: 'A cold kernel cache can take 10-20 minutes; if it repeats, read the log for the step it stops at.',
    retryable: true,
  },
  unhealthy: {
    code: 'unhealthy',
    cause: 'The serve is running but its health check (/health_generate) is failing.',
    fix: 'Wait a minute; if it stays unhealthy, restart the serve and read its log.',
    retryable: true,
  },
  'runtime-missing': {
    code: 'runtime-missing',
    cause: 'The program that runs sglang (Python with sglang, or Docker) could not be started.',
    fix: 'Install sglang (the panel can set up its own Python environment) or Docker, then start again.',
    retryable: false,
  },
  'docker-unavailable': {
    code: 'docker-unavailable',
    cause: 'Docker is installed but its daemon is not running, or this user may not talk to it.',
    fix: 'Start Docker (sudo systemctl start docker); if it says permission denied, add this user to the docker group and log in again. Or choose the Python runtime in Settings.',
    retryable: false,
  },
  'docker-no-gpu': {
    code: 'docker-no-gpu',
    cause: 'Docker could not give the container the GPUs: the NVIDIA Container Toolkit is missing or not set up for Docker.',
    fix: 'Install the NVIDIA Container Toolkit, run sudo nvidia-ctk runtime configure --runtime=docker and restart Docker, then start again.',
    retryable: false,
  },
  'docker-pull-failed': {
    code: 'docker-pull-failed',
    cause: 'Docker could not download the sglang image (offline, the registry refused, or Docker Hub rate-limited this address).',
    fix: 'Check the internet connection; on "toomanyrequests" sign in with docker login. Running docker pull with the image named in the command shows the registry\'s own answer.',
    retryable: false,
  },
  'disk-full': {
    code: 'disk-full',
    cause: 'The disk filled up while the serve was starting (the sglang image is about 20 GB, the checkpoint about 35 GB).',
    fix: "Free space on the disk that holds Docker's images or the checkpoint (df -h shows which), then start again.",
    retryable: false,
  },
  exited: {
    code: 'exited',
    cause: 'The serve stopped unexpectedly.',
    fix: 'The panel restarts it; if it keeps stopping, read the last lines of its log.',
    retryable: true,
  },
};

// A crash may print several of these; the first in this list that matched wins (most specific first).
const SIGNATURES: ReadonlyArray<readonly [RegExp, ServeCauseCode | 'oom']> = [
  [/Capture cuda graph failed/i, 'cuda-oom-graph'],
  [/Not enough memory\. Please try to increase --mem-fraction-static/i, 'not-enough-memory'],
  [/type fp8e4nv not supported in this architecture|fp8e4nv not supported/i, 'fp8-unsupported'],
  [/NVCC compilation failed|nvcc: (?:command )?not found|nvcc fatal|Could not find nvcc|CUDA_HOME environment variable is not set/i, 'nvcc-missing'],
  [/NVIDIA driver on your system is too old|CUDA driver version is insufficient for CUDA runtime version/i, 'driver-too-old'],
  [/\[Errno 98\]|address already in use/i, 'port-in-use'],
  [/CUDART error: peer access is not supported|NCCL error|ncclUnhandledCudaError|ncclSystemError|ncclInternalError/i, 'p2p-nccl'],
  [/not configured to return the hidden states/i, 'hidden-states-disabled'],
  [/Scheduler watchdog timeout/i, 'watchdog-timeout'],
  [
    /(?:OSError|FileNotFoundError|ValueError|RepositoryNotFoundError|HFValidationError).*(?:config\.json|model[_ ]path|does not appear to have a file|Repo id must be|No such file or directory)|Can't load the configuration of|is not a local folder and is not a valid model identifier/i,
    'model-path-missing',
  ],
  [/CUDA out of memory|torch\.OutOfMemoryError|OutOfMemoryError/i, 'oom'],
  // Docker's own failures print before any sglang line, on the CLI's stderr.
  [/Cannot connect to the Docker daemon|permission denied while trying to connect to the Docker daemon/i, 'docker-unavailable'],
  [/could not select device driver .*capabilities: \[\[gpu\]\]|unknown or invalid runtime name: nvidia|nvidia-container-cli: /i, 'docker-no-gpu'],
  [/pull access denied|manifest unknown|toomanyrequests|error pulling image|failed to resolve reference|Error response from daemon: Get "https:\/\/registry/i, 'docker-pull-failed'],
  [/No space left on device|\bENOSPC\b/i, 'disk-full'],
];

/** Matches one log line against the known failure signatures. */
export function signatureOfLine(line: string): ServeCauseCode | 'oom' | null {
  // The consumer-GPU custom-allreduce warning is harmless by itself; only the crash form counts.
  if (/Setup Custom allreduce failed/i.test(line)) return null;
  for (const [re, code] of SIGNATURES) if (re.test(line)) return code;
  return null;
}

export function causeOf(code: ServeCauseCode, evidence?: string): ServeCause {
  const c = CAUSES[code];
  return evidence === undefined ? { ...c } : { ...c, evidence: evidence.slice(0, 500) };
}

/**
 * Remembers the most telling signature seen in an engine's output. A plain "CUDA out of memory"
 * is told apart by where the engine was: during graph capture it is a fraction problem, before it
 * a capacity problem.
 */
export class CrashEvidence {
  private best: { code: ServeCauseCode; rank: number; line: string } | null = null;
  // Kernel-compile lines interleave with graph capture; track capture itself, not the last phase.
  private inCapture = false;
  private initBegun = false;
  private initEnded = false;

  observe(line: string, phase: ServeStartPhase | null): void {
    if (/Capture cuda graph begin|Capturing batches/.test(line)) this.inCapture = true;
    else if (/Capture cuda graph end/.test(line)) this.inCapture = false;
    if (/Init torch distributed begin/.test(line)) this.initBegun = true;
    else if (/Init torch distributed ends/.test(line)) this.initEnded = true;
    const sig = signatureOfLine(line);
    if (sig === null) return;
    const duringCapture = this.inCapture || phase === 'capturing-cuda-graphs';
    const code: ServeCauseCode = sig === 'oom' ? (duringCapture ? 'cuda-oom-graph' : 'cuda-oom-load') : sig;
    const rank = SIGNATURES.findIndex(([, c]) => c === sig);
    if (this.best === null || rank < this.best.rank) this.best = { code, rank, line };
  }

  reset(): void {
    this.best = null;
    this.inCapture = false;
    this.initBegun = false;
    this.initEnded = false;
  }

  /** Began setting up the GPUs' process group and never finished: the NCCL hang of consumer multi-GPU. */
  stuckInDistributedInit(): boolean {
    return this.initBegun && !this.initEnded;
  }

  /** The cause for an exit; `signal` SIGKILL we did not send means the OS killed it. */
  classify(exit: { code: number | null; signal: string | null }): ServeCause {
    if (this.best) return causeOf(this.best.code, this.best.line);
    if (exit.signal === 'SIGKILL') return causeOf('killed');
    if (exit.code === 127) return causeOf('runtime-missing');
    return causeOf('exited');
  }
}
