// Which shell gets which services. Every entry (the desktop engine, headless, `demo`, `mine`, `validate`)
// composes through composeEngine with one of these profiles; the list is the whole difference between them.
import type { AppInfo } from '../../shared/api.ts';

export type Profile = 'desktop' | 'headless' | 'demo' | 'mine' | 'validate';

export type ModuleName =
  | 'runtime'
  | 'settings'
  | 'hardware'
  | 'checkpoint'
  | 'serve'
  | 'proof-pool'
  | 'mining'
  | 'validating'
  | 'wallet'
  | 'preflight'
  | 'metrics'
  | 'history'
  | 'notify'
  | 'webhook'
  | 'storage-watch'
  | 'earnings'
  | 'app'
  | 'fleet'
  | 'health-lines'
  | 'miner-daemon'
  | 'validator-daemon';

/** The panel: every page's services, bound to the contract. */
const PANEL: readonly ModuleName[] = [
  'runtime',
  'settings',
  'hardware',
  'checkpoint',
  'serve',
  'proof-pool',
  'wallet',
  'preflight',
  'notify',
  'mining',
  'validating',
  'metrics',
  'history',
  'webhook',
  'storage-watch',
  'earnings',
  'app',
  'fleet',
];

/** In build order; a module named here is wired exactly once (Wiring refuses a second time). */
export const PROFILE_MODULES: Readonly<Record<Profile, readonly ModuleName[]>> = {
  // Every panel logs the miners' state changes and the validator's reachability: to the terminal for the
  // shells that print, to the log file and the Logs page for the desktop app (issue 26: the app gets them too).
  desktop: [...PANEL, 'health-lines'],
  headless: [...PANEL, 'health-lines'],
  demo: [...PANEL, 'health-lines'],
  // The daemons: one service each, with the storage watch (a full disk is said, not silent) and health lines.
  mine: ['runtime', 'notify', 'storage-watch', 'proof-pool', 'miner-daemon', 'health-lines'],
  validate: ['runtime', 'notify', 'storage-watch', 'validator-daemon', 'health-lines'],
};

/** The profile a panel shell gets when none is named. */
export function defaultProfile(shell: AppInfo['shell']): Profile {
  return shell === 'electron' ? 'desktop' : 'headless';
}
