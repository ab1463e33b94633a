// What a rig's link shows its Fleet row (electron/engine/fleet/fleet-row.ts RigLinkView): a connected rig on
// contract 1 that has sent nothing yet; `over` sets what a test varies (link state, topics, refusals).
import type { RigLinkView } from '../../electron/engine/fleet/fleet-row.ts';

export const rigLinkView = (over: Partial<RigLinkView>): RigLinkView => ({
  link: 'online',
  detail: 'Connected.',
  unreachableSince: null,
  hostKey: null,
  version: '0.1.0',
  contract: 1,
  refused: 0,
  updatedAt: 1,
  topics: {},
  ...over,
});
