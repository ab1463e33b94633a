// The native tokenizer (the `tokenizers` package, Hugging Face's Rust crate) spreads an `encodeBatch`
// over Rayon's threads, one per core, unless TOKENIZERS_PARALLELISM says otherwise. The miner's batches
// are a gateway leg's read each (a handful of short prompts): the work is about 50 us a prompt, and
// waking two more threads for it on a box whose cores the serve and the proof worker want costs more
// than it saves. Measured with `npm run bench -- miner` over nine alternated pairs: first token p50 a mean
// 1.29x direct without Rayon against 1.36x with it, ahead in seven (docs/performance.md, round 12: a
// small gain, near what this bench can resolve). Batches still run side by side on libuv's pool, one per
// leg read, so a rig with many cores keeps its parallelism across legs.
//
// The crate reads the variable from the process environment at each batch, so it is set there, before
// the first encode. A serve the panel starts keeps the environment the user gave the panel: the
// setting is this process's own and is taken out of what a serve inherits.

const KEY = 'TOKENIZERS_PARALLELISM';

/** Environments in which this module set the variable (not the user). */
const setHere = new WeakSet<NodeJS.ProcessEnv>();

/**
 * Batches run on the pool thread that took them, without Rayon's threads. A value the user set
 * (either way) is kept. True when it set the variable.
 */
export function serialTokenizerBatches(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env[KEY] !== undefined) return false;
  env[KEY] = 'false';
  setHere.add(env);
  return true;
}

/** What a child process inherits from `env`: the same, less the setting this process made for itself. */
export function withoutOwnTokenizerSetting(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (!setHere.has(env) || env[KEY] !== 'false') return env;
  const copy = { ...env };
  delete copy[KEY];
  return copy;
}
