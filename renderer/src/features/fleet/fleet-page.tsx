// The Fleet page: this panel's fleet topic, rendered by FleetView; a rig's name opens its full panel.
import { openRig, usePanelSnapshot } from '../../stores/engine-store.ts';
import { useUi } from '../../stores/ui-store.ts';
import { FleetView } from './fleet-view.tsx';

export function FleetPage() {
  const go = useUi((s) => s.go);
  return (
    <FleetView
      fleet={usePanelSnapshot('fleet')}
      openSettings={() => go('settings')}
      openRig={(r) => {
        openRig({ id: r.id, name: r.name });
        go(r.role === 'validate' ? 'validate' : 'mine');
      }}
    />
  );
}
