// While a rig's full panel is open, this names the rig above every page (so nobody stops the wrong rig),
// says whether the panel reaches it now, and leads back to this panel's own engine.
import { closeRig, usePanelSnapshot } from '../../stores/engine-store.ts';
import { useUi } from '../../stores/ui-store.ts';

export function RigBanner({ rig }: { rig: { id: string; name: string } }) {
  const go = useUi((s) => s.go);
  const row = usePanelSnapshot('fleet')?.rigs.find((r) => r.id === rig.id);
  const back = () => {
    closeRig();
    go('fleet');
  };
  return (
    <div className="rig-banner" role="region" aria-label={`Rig ${rig.name}`} data-testid="rig-banner">
      <span>
        Rig <b data-testid="rig-banner-name">{rig.name}</b>
        <span className="rig-banner-what"> · every page here shows and acts on this rig{row ? ` (${row.target})` : ''}</span>
        {row && row.link !== 'online' && <span className="rig-banner-down"> · not reachable now: {row.detail}</span>}
      </span>
      <button className="btn small-btn" onClick={back}>
        Back to this panel
      </button>
    </div>
  );
}
