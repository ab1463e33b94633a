// Settings > Rigs: the rigs this panel reaches over SSH. A rig is added as user@host[:port] or a Host
// alias from ~/.ssh/config; its host key is then shown by fingerprint and must be accepted here (an
// unknown or changed key is never skipped). The rig's token is read over SSH, never typed.
import { useState } from 'react';
import type { RigRow } from '../../../../shared/fleet.ts';
import { useSnapshot } from '../../stores/engine-store.ts';
import { ActionError, useAction } from '../common/use-action.tsx';

function HostKey({ rig }: { rig: RigRow }) {
  const { invoke, error, busy } = useAction();
  if (!rig.hostKey) return null;
  const changed = rig.link === 'host-key-changed';
  return (
    <div className={`stack ${changed ? 'error-box' : 'confirm'}`} data-testid={`hostkey-${rig.name}`}>
      <b>{changed ? `${rig.name}'s host key CHANGED` : `First connection to ${rig.name}: check its host key`}</b>
      <span className="small">{rig.detail}</span>
      {rig.hostKey.previous && (
        <span className="small">
          Accepted before: <span className="fingerprint">{rig.hostKey.previous.join(', ')}</span>
        </span>
      )}
      <span className="small">
        The rig shows now:{' '}
        <span className="fingerprint" data-testid={`fingerprint-${rig.name}`}>
          {rig.hostKey.fingerprints.join(', ')}
        </span>
      </span>
      <span className="muted small">On the rig, `ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub` prints its own: accept only if they match.</span>
      <div className="row">
        <button className="btn primary" disabled={busy} onClick={() => void invoke('fleet.acceptHostKey', { id: rig.id, fingerprints: rig.hostKey!.fingerprints })}>
          Accept this key for {rig.name}
        </button>
      </div>
      <ActionError error={error} />
    </div>
  );
}

export function RigsCard() {
  const fleet = useSnapshot('fleet');
  const [target, setTarget] = useState('');
  const [name, setName] = useState('');
  const [command, setCommand] = useState('');
  const [dataDir, setDataDir] = useState('');
  const [removing, setRemoving] = useState<string | null>(null);
  const { invoke, error, busy } = useAction();
  const add = async () => {
    const r = await invoke('fleet.addRig', { target, name: name.trim() || null, command: command.trim() || null, dataDir: dataDir.trim() || null });
    if (r.ok) {
      setTarget('');
      setName('');
    }
  };
  const rigs = fleet?.rigs ?? [];
  return (
    <section className="card stack" aria-labelledby="rigs-settings-h" data-testid="rigs-card">
      <h2 id="rigs-settings-h">Rigs</h2>
      <p className="muted small">
        Other rigs this panel watches and controls, reached over SSH with your keys and agent (nothing faces the LAN). Each needs engy-panel there, its engine running (engy-panel headless or the
        service), and your key in its authorized_keys.
      </p>
      <div className="row">
        <label className="stack small">
          SSH address
          <input value={target} onChange={(e) => setTarget(e.target.value)} placeholder="op@rig1.lan or op@10.0.0.5:2222 or an ~/.ssh/config Host" spellCheck={false} data-testid="rig-target" />
        </label>
        <label className="stack small">
          Name (optional)
          <input value={name} onChange={(e) => setName(e.target.value)} placeholder="rig1" maxLength={64} data-testid="rig-name" />
        </label>
        <label className="stack small">
          engy-panel command on the rig (optional)
          <input value={command} onChange={(e) => setCommand(e.target.value)} placeholder="engy-panel" spellCheck={false} data-testid="rig-command" />
        </label>
        <label className="stack small">
          Its data dir (optional)
          <input value={dataDir} onChange={(e) => setDataDir(e.target.value)} placeholder="~/.config/engy-panel" spellCheck={false} data-testid="rig-data-dir" />
        </label>
        <button className="btn primary" disabled={busy || target.trim() === ''} onClick={() => void add()}>
          Add rig
        </button>
      </div>
      <ActionError error={error} />
      {rigs.length === 0 ? (
        <p className="small">No rigs yet.</p>
      ) : (
        <ul className="notif-list">
          {rigs.map((r) => (
            <li key={r.id} className="stack" data-testid={`rig-setting-${r.name}`}>
              <div className="spread">
                <span>
                  <b>{r.name}</b> <span className="muted small">{r.target}</span> · <span className="small">{r.link}</span>
                </span>
                {removing === r.id ? (
                  <span className="row">
                    <button className="btn" onClick={() => void invoke('fleet.removeRig', { id: r.id }).then(() => setRemoving(null))}>
                      Remove {r.name}
                    </button>
                    <button className="btn" onClick={() => setRemoving(null)}>
                      Keep
                    </button>
                  </span>
                ) : (
                  <span className="row">
                    <button className="btn" disabled={busy} onClick={() => void invoke('fleet.retry', { id: r.id })}>
                      Retry now
                    </button>
                    <button className="btn" onClick={() => setRemoving(r.id)}>
                      Remove…
                    </button>
                  </span>
                )}
              </div>
              <HostKey rig={r} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
