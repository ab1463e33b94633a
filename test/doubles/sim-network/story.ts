// TEST DOUBLE (simulated network): the demo's scripted timeline. Named steps, each logged with a
// `[story]` prefix, that wait on what the network and the app actually do (never on the clock alone):
// the honest rig qualifies and earns, the int4 cheat is refused, the validator verifies and submits
// each epoch, a provider outage at epoch 3 makes it resubmit its cached vector, the provider recovers.
import type { ValidatorSnapshot } from '../../../shared/validator.ts';
import { SN53 } from '../dev-chain/sn53-seed.ts';
import type { PublishedEpoch, SimulatedNetwork } from './sim-network.ts';
import { CHEAT_WORKER, RIG_WORKER } from './demo-data-dir.ts';
import { errorMessage } from '../../../shared/errors.ts';

export interface StoryOptions {
  log: (line: string) => void;
  /** The app's validator, for what kind of vector it landed (fresh or cached). */
  validator?: () => ValidatorSnapshot | null;
  /** The epoch whose landing starts the provider outage. Default 3. */
  outageAtEpoch?: number;
  /** Longest the outage waits for a cached resubmission before the provider comes back anyway. */
  maxOutageMs?: number;
}

export interface RunningStory {
  /** Names of the steps completed so far, in order. */
  steps: string[];
  done: Promise<void>;
  stop(): void;
}

class Stopped extends Error {}

export function runStory(net: SimulatedNetwork, o: StoryOptions): RunningStory {
  const steps: string[] = [];
  let stopped = false;
  const sleeping = new Map<ReturnType<typeof setTimeout>, () => void>();
  const say = (line: string) => o.log(`[story] ${line}`);
  const step = (name: string, line: string) => {
    steps.push(name);
    say(`${name}: ${line}`);
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        sleeping.delete(t);
        resolve();
      }, ms);
      sleeping.set(t, resolve);
    });
  const until = async (pred: () => boolean, ms: number): Promise<boolean> => {
    const end = Date.now() + ms;
    while (!pred()) {
      if (stopped) throw new Stopped();
      if (Date.now() > end) return false;
      await sleep(250);
    }
    return true;
  };
  const worker = (name: string) => net.gateway.view().find((w) => w.workerName === name);
  const rigUid = net.uidOf(net.hotkeys.rig) ?? 1;
  const lastUpdate = () => net.chain.state.lastUpdateOf(SN53, rigUid) ?? 0;
  const share = (e: PublishedEpoch, hk: string) => ((e.weights.find(([h]) => h === hk)?.[1] ?? 0) / 65535) * 100;

  // Running commentary beside the steps: every epoch, every landed submission.
  const offEpoch = net.onEpoch((e) => {
    const rig = e.rows.find((r) => r.hotkey === net.hotkeys.rig);
    const cheat = e.rows.find((r) => r.hotkey === net.hotkeys.cheat);
    say(
      `epoch ${e.index} published by the provider: demo rig ${rig?.tokens ?? 0} tokens, weight ${share(e, net.hotkeys.rig).toFixed(1)}%; cheat ${cheat ? `gate ${cheat.gate_reason ?? 'passed'}, weight ${share(e, net.hotkeys.cheat).toFixed(1)}%` : 'not scored'}`,
    );
  });
  const atStart = lastUpdate();
  let seenUpdate = atStart;
  let seenSubmission = o.validator?.()?.recentSubmissions[0]?.at ?? 0;
  const observe = () => {
    // With the app's validator at hand, say what it submitted (fresh or cached, landed or refused).
    const sub = o.validator?.()?.recentSubmissions[0];
    if (sub && sub.at !== seenSubmission) {
      seenSubmission = sub.at;
      say(
        `validator submitted epoch ${sub.epochIndex} (${sub.kind} vector, uids ${sub.uids.join(',')}): ${sub.ok ? `landed in block ${sub.includedBlock ?? sub.block ?? '?'}` : `refused: ${sub.error ?? sub.errorCode ?? 'unknown'}`}`,
      );
    }
    const now = lastUpdate();
    if (now === seenUpdate) return;
    seenUpdate = now;
    if (!o.validator) say(`validator weights landed on chain at block ${now}`);
  };
  const watch = setInterval(observe, 500);

  const script = async () => {
    step('network-up', `chain ${net.chain.url}, provider ${net.provider.url}, gateway ${net.gateway.url}; epochs every ${Math.round(net.epochMs / 1000)} s`);
    if (await until(() => worker(RIG_WORKER)?.state === 'active', 180_000)) {
      const w = worker(RIG_WORKER)!;
      step('honest-qualifies', `${RIG_WORKER} passed its probe (${w.probeResults.ok} answered, ${w.audits.filter((a) => a.verdict === 'pass').length} proofs verified) and receives paid traffic`);
    } else say(`${RIG_WORKER} has not qualified after 3 min: ${worker(RIG_WORKER)?.reason ?? 'still ' + (worker(RIG_WORKER)?.state ?? 'not connected')}`);
    if (await until(() => worker(CHEAT_WORKER)?.state === 'refused', 120_000)) {
      step('cheat-refused', `${CHEAT_WORKER} (an int4 serve claiming the full model) was refused by the gateway: ${worker(CHEAT_WORKER)?.reason ?? ''}`);
    }
    await until(() => net.epochs.length >= 1, 180_000);
    const first = net.epochs[0];
    if (first) step('rig-earns', `epoch ${first.index}: the demo rig holds ${share(first, net.hotkeys.rig).toFixed(1)}% of the miner weights`);
    if (await until(() => lastUpdate() !== atStart, 120_000)) step('validator-submits', `the rig's validator verified the signed epoch and set weights at block ${lastUpdate()}`);

    const outageAt = o.outageAtEpoch ?? 3;
    await until(() => net.epochs.length >= outageAt, 10 * net.epochMs);
    const landedBefore = lastUpdate();
    // Let the validator land epoch 3 first, so the cache it falls back on is the newest.
    const landedOutageEpoch = () => (o.validator ? (o.validator()?.recentSubmissions.find((x) => x.ok)?.epochIndex ?? 0) >= outageAt : lastUpdate() !== landedBefore);
    await until(landedOutageEpoch, net.epochMs);
    observe();
    await net.provider.refuse();
    const outageStart = Date.now();
    const landedAtOutage = lastUpdate();
    step('provider-outage', `the provider stops answering at epoch ${net.epochs.length}: the validator keeps resubmitting its cached vector on its cadence`);
    // At least 1.5 epochs, and until a cached resubmission landed (the validator's pre-gate is wall-clock paced).
    const resubmitted = () => {
      const sub = o.validator?.()?.recentSubmissions[0];
      return o.validator ? sub !== undefined && sub.ok && sub.kind === 'cached' && sub.at >= outageStart : lastUpdate() !== landedAtOutage;
    };
    await until(() => Date.now() - outageStart >= 1.5 * net.epochMs && resubmitted(), o.maxOutageMs ?? 6 * 60_000);
    observe();
    if (resubmitted()) say(`during the outage the validator kept the subnet's weights alive from its cache (block ${lastUpdate()})`);
    await net.provider.resume();
    step('provider-recovers', `the provider answers again after ${Math.round((Date.now() - outageStart) / 1000)} s; the next epoch submits at once`);
    const n = net.epochs.length;
    await until(() => net.epochs.length > n, 2 * net.epochMs);
    step('steady-state', 'the story is told; the network keeps running until you stop it (Ctrl+C)');
  };

  const done = script().catch((e: unknown) => {
    if (!(e instanceof Stopped)) say(`the story stopped early: ${errorMessage(e)}`);
  });
  return {
    steps,
    done,
    stop() {
      stopped = true;
      clearInterval(watch);
      offEpoch();
      // Wake the sleepers: they see `stopped` and end the script.
      for (const [t, wake] of sleeping) {
        clearTimeout(t);
        wake();
      }
      sleeping.clear();
    },
  };
}
