import type { ServeStartPhase } from '../../../shared/serve.ts';

/** Exact line sglang logs once its own warmup request has succeeded. */
export const READY_LINE = 'The server is fired up and ready to roll!';

export interface PhaseHit {
  phase: ServeStartPhase;
  /** tqdm percentage on progress lines ("50% Completed", "14%|"), when the line has one. */
  progressPct: number | null;
}

// Ordered: the first match wins. Patterns follow the startup sequence in SGLANG.md A7.
const PHASE_PATTERNS: ReadonlyArray<readonly [RegExp, ServeStartPhase]> = [
  [/Load weight begin|Loading safetensors checkpoint shards|Multi-thread loading shards|Loading weights/i, 'loading-weights'],
  [/Using KV cache dtype|KV Cache is allocated|Mamba Cache is allocated|Memory pool end/i, 'allocating-kv-cache'],
  [/DeepGEMM|JIT compil|Compiling kernel|nvcc|kernel compil|Pre-Compile/i, 'compiling-kernels'],
  [/Capture cuda graph|Capturing batches/i, 'capturing-cuda-graphs'],
  [/Uvicorn running on|Application startup complete|Started server process|Waiting for application startup/i, 'warming-up'],
];

function percentOf(line: string): number | null {
  const m = /(\d{1,3})%\s*(?:Completed|\|)/.exec(line);
  if (!m) return null;
  const n = Number(m[1]);
  return n >= 0 && n <= 100 ? n : null;
}

export function phaseOfLine(line: string): PhaseHit | null {
  for (const [re, phase] of PHASE_PATTERNS) if (re.test(line)) return { phase, progressPct: percentOf(line) };
  return null;
}

export function isReadyLine(line: string): boolean {
  return line.includes(READY_LINE);
}
