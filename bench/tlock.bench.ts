// Timelock encryption for commit-reveal v4: encrypt and decrypt times of a 256-uid WeightsTlockPayload (the largest
// the validator builds) on the calling thread, against the event loop, and through the worker the validator uses.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { cpuUsage } from 'node:process';
import { tlockDecrypt, tlockEncrypt } from '../electron/engine/chain/tlock/ibe.ts';
import { stopTlockWorker, tlockEncryptOffThread } from '../electron/engine/chain/tlock/tlock-off-thread.ts';
import { encodeWeightsPayload } from '../electron/engine/chain/tlock/weights-payload.ts';

// drand quicknet, round 1000 (the pulse also in shared/vectors/tlock/quicknet_pulses.jsonl).
const ROUND = 1000;
const SIGNATURE = Buffer.from('b44679b9a59af2ec876b1a6b1ad52ea9b1615fc3982b19576350f93447cb1125e342b73a8dd2bacbe47e4b6b63ed5e39', 'hex');
const RUNS = 10;

function stats(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!.toFixed(1);
  return `median ${q(0.5)} ms, p90 ${q(0.9)} ms, min ${s[0]!.toFixed(1)} ms (${s.length} runs)`;
}

export async function bench(): Promise<void> {
  const uids = Array.from({ length: 256 }, (_, i) => i);
  const payload = encodeWeightsPayload({ hotkey: new Uint8Array(32).fill(1), uids, values: uids.map((u) => 65535 - u), versionKey: 0n });
  tlockDecrypt(tlockEncrypt(payload, ROUND), SIGNATURE); // warm up (curve tables, JIT)

  const enc: number[] = [];
  const dec: number[] = [];
  const cpu0 = cpuUsage();
  let ct: Uint8Array = new Uint8Array();
  for (let i = 0; i < RUNS; i++) {
    let t = performance.now();
    ct = tlockEncrypt(payload, ROUND);
    enc.push(performance.now() - t);
    t = performance.now();
    tlockDecrypt(ct, SIGNATURE);
    dec.push(performance.now() - t);
  }
  const cpu = cpuUsage(cpu0);
  console.log(`256-uid payload (${payload.length} B plaintext, ${ct.length} B commit; the chain allows 5000 B):`);
  console.log(`  encrypt on the calling thread: ${stats(enc)}`);
  console.log(`  decrypt on the calling thread: ${stats(dec)}`);
  console.log(`  CPU for ${RUNS} encrypt+decrypt: ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms`);

  // Through the worker: the first call pays the worker's start, the rest only the pairing and a message hop.
  const lag = monitorEventLoopDelay({ resolution: 5 });
  lag.enable();
  const off: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await tlockEncryptOffThread(payload, ROUND);
    off.push(performance.now() - t);
  }
  lag.disable();
  await stopTlockWorker();
  console.log(`  encrypt in the worker: first ${off[0]!.toFixed(0)} ms (worker start), then ${stats(off.slice(1))}`);
  console.log(`  event-loop delay meanwhile: max ${(lag.max / 1e6).toFixed(1)} ms (an on-thread encrypt would block it for the times above)`);
}
