// TEST DOUBLE entry point (dev only, never shipped): what `engy-panel demo` loads from a source
// checkout. `satisfies DemoEntry` makes the compiler check the simulated network against the
// contract the shipped demo command is written to (electron/cli/demo-contract.ts).
import type { DemoEntry } from '../../../electron/cli/demo-contract.ts';
import { settingsNetwork } from './demo-data-dir.ts';
import { startSimulatedNetwork, type SimulatedNetwork } from './sim-network.ts';
import { runStory } from './story.ts';

export const demoEntry = { settingsNetwork, startSimulatedNetwork, runStory } satisfies DemoEntry<SimulatedNetwork>;
