// What `engy-panel demo` needs from the simulated network. The network is made of the test doubles,
// which never ship, so the demo loads them at run time from one dev-only entry point
// (test/doubles/sim-network/demo-entry.ts); that file declares itself `satisfies DemoEntry`, so the
// compiler checks the doubles against this contract instead of the demo trusting hand-copied shapes.
import type { RunningHeadless } from '../headless.ts';
import type { ValidatorSnapshot } from '../../shared/validator.ts';

export interface DemoNetwork {
  epochMs: number;
  app: RunningHeadless | null;
  startApp(opts?: { port?: number; echo?: (line: string) => void }): Promise<RunningHeadless>;
  stop(): Promise<void>;
}

export interface DemoStory {
  done: Promise<void>;
  stop(): void;
}

/** `N`: the network type the entry really returns; the story gets that same object back. */
export interface DemoEntry<N extends DemoNetwork = DemoNetwork> {
  /** Which network a data dir's settings are for (the demo never touches a mainnet one). */
  settingsNetwork(dataDir: string): 'mainnet' | 'simulated' | null;
  startSimulatedNetwork(o: { dataDir: string; epochMs?: number; log?: (line: string) => void }): Promise<N>;
  runStory(net: N, o: { log: (line: string) => void; validator?: () => ValidatorSnapshot | null }): DemoStory;
}

/** The dev-only entry's path, relative to the checkout root. */
export const DEMO_ENTRY = ['test', 'doubles', 'sim-network', 'demo-entry.ts'] as const;
