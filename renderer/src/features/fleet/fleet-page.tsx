// The Fleet page: the fleet topic from the engine store, rendered by FleetView.
import { useSnapshot } from '../../stores/engine-store.ts';
import { useUi } from '../../stores/ui-store.ts';
import { FleetView } from './fleet-view.tsx';

export function FleetPage() {
  const go = useUi((s) => s.go);
  return <FleetView fleet={useSnapshot('fleet')} openSettings={() => go('settings')} />;
}
