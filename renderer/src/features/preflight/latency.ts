import { fmt } from '../mine/figures.ts';

// One unit per figure on every page (the Mine cards' formatters): TTFT in seconds, TPOT in milliseconds.
// "7691 ms" here beside "7.7 s" on the Mine page read as two different numbers.
export const ttftText = (ms: number | null) => (ms === null ? '—' : `${fmt.ttftS(ms)} s`);
export const tpotText = (ms: number | null) => (ms === null ? '—' : `${fmt.tpotMs(ms)} ms`);
