import { useEffect, useState } from 'react';
import type { RuntimeReport } from '../../../../shared/serve.ts';
import type { Settings, SettingsPatch } from '../../../../shared/settings.ts';
import type { CheckpointFolderVerdict, SglangSetupSnapshot } from '../../../../shared/sglang-setup.ts';
import { engineApi, useSnapshot } from '../../stores/engine-store.ts';
import { CheckpointCard } from './checkpoint-card.tsx';
import { ActionError, useAction } from '../common/use-action.tsx';
import { ChoiceGroup, type Choice } from '../common/choice-group.tsx';

type RuntimeId = 'python' | 'docker' | 'external';
const RUNTIMES: Choice<RuntimeId>[] = [
  { id: 'python', title: 'Python', text: 'The panel starts and supervises sglang from a Python that has it, or from its own environment.' },
  { id: 'docker', title: 'Docker', text: 'The pinned lmsysorg/sglang image with --gpus all; the checkpoint mounted read-only.' },
  { id: 'external', title: 'A serve I already run', text: 'The panel only watches it: give its URL (e.g. http://127.0.0.1:30000).' },
];

/** What detection found for one runtime, in a few words (null: nothing to say). */
export function runtimeFinding(id: RuntimeId, r: RuntimeReport | null | undefined): { ok: boolean; text: string } | null {
  if (!r || id === 'external') return null;
  if (id === 'python') {
    if (r.python)
      return {
        ok: r.python.supported,
        text: `sglang ${r.python.sglangVersion} found (${r.python.python}, Python ${r.python.pythonVersion ?? '?'})${r.python.supported ? '' : ': a version the trim does not know'}`,
      };
    const base = r.pythonTried.find((p) => p.pythonVersion !== null);
    return { ok: false, text: base ? `sglang not found (Python ${base.pythonVersion} at ${base.python} has no sglang)` : 'no Python 3 found' };
  }
  const d = r.docker;
  if (!d.available) return { ok: false, text: d.problem ?? 'Docker is not available' };
  return { ok: true, text: d.imagePresent ? `Docker ${d.serverVersion ?? ''}: image ${d.image} present` : `Docker ${d.serverVersion ?? ''}: image not pulled yet (about 20 GB on first start)` };
}

/** Serve runtime ready: python with sglang, docker available, or an external URL given. */
export function runtimeReady(settings: Settings, r: RuntimeReport | null | undefined): boolean {
  const kind = settings.mining.runtime;
  if (kind === 'external') return settings.mining.externalServeUrls.length > 0;
  if (kind === 'python') return r?.python != null;
  if (kind === 'docker') return r?.docker.available === true;
  return false;
}

function InstallPanel({ s }: { s: SglangSetupSnapshot }) {
  const { invoke, error } = useAction();
  const i = s.install;
  return (
    <div className="card stack" data-testid="sglang-install" style={{ gap: 10 }}>
      <div className="spread">
        <b>Install sglang into the panel's own environment</b>
        {i.state !== 'idle' && (
          <span className={`badge ${i.state === 'done' ? 'ok' : i.state === 'running' ? 'info' : i.state === 'failed' ? 'bad' : 'neutral'}`}>
            {i.state === 'running' ? (i.step ?? 'running') : i.state}
          </span>
        )}
      </div>
      <p className="small" style={{ margin: 0 }}>
        Creates a Python environment at <span className="mono">{s.needs.into}</span> and installs the pinned sglang with pip. Needs about {s.needs.diskGiB} GiB of disk and {s.needs.minutes}. Nothing
        outside that folder changes.
      </p>
      {i.state === 'running' ? (
        <div className="row">
          <span className="small">
            {i.step === 'creating-venv'
              ? 'Creating the environment…'
              : i.step === 'installing'
                ? 'Installing the downloaded packages…'
                : `Downloading packages (${i.downloads} so far${i.lastDownload ? `, now ${i.lastDownload}` : ''})…`}
          </span>
          <button className="btn" onClick={() => void invoke('serve.cancelSglangInstall', null)}>
            Cancel
          </button>
        </div>
      ) : (
        <div className="row">
          <button className="btn primary" onClick={() => void invoke('serve.installSglang', null)}>
            {i.state === 'failed' || i.state === 'cancelled' ? 'Install again' : 'Install sglang'}
          </button>
        </div>
      )}
      {i.error && <div className="error-box">{i.error}</div>}
      <ActionError error={error} />
      {i.log.length > 0 && (
        <details>
          <summary className="small">pip's log ({i.log.length} lines)</summary>
          <div className="cmd setup-log">{i.log.slice(-40).join('\n')}</div>
        </details>
      )}
    </div>
  );
}

export function ServeStep({ settings, downloadAllowed }: { settings: Settings; downloadAllowed: boolean }) {
  const [url, setUrl] = useState(settings.mining.externalServeUrls.join(', '));
  const [dir, setDir] = useState(settings.mining.checkpointDir ?? '');
  const [error, setError] = useState<string | null>(null);
  const [folder, setFolder] = useState<CheckpointFolderVerdict | null>(null);
  const checkpoint = useSnapshot('checkpoint');
  const sglang = useSnapshot('sglang');
  const runtimes = sglang?.runtimes;
  const { invoke: detect, error: detectError } = useAction();
  const { invoke: checkFolder, error: folderError } = useAction();
  useEffect(() => {
    if (!runtimes && !sglang?.detecting) void detect('serve.detectRuntimes', { refresh: false });
  }, [runtimes, sglang?.detecting, detect]);
  // The folder in use is checked for room whenever it changes or its checkpoint state does.
  useEffect(() => {
    void checkFolder('checkpoint.checkFolder', { dir: settings.mining.checkpointDir }).then((r) => setFolder(r.ok ? r.value : null));
  }, [settings.mining.checkpointDir, checkpoint?.state, checkFolder]);
  const save = async (patch: NonNullable<SettingsPatch['mining']>) => {
    const r = await engineApi().invoke('settings.update', { mining: patch });
    setError(r.ok ? null : r.error.message);
    return r.ok;
  };
  const applyFolder = async () => {
    const chosen = dir.trim() === '' ? null : dir.trim();
    const r = await engineApi().invoke('checkpoint.checkFolder', { dir: chosen });
    if (!r.ok) return setError(r.error.message);
    setFolder(r.value);
    // A folder that cannot be used is not saved; one merely short of room is (the red note stays).
    if (r.value.usable) await save({ checkpointDir: chosen });
  };
  const kind = settings.mining.runtime;
  const showInstall = kind === 'python' && runtimes && !runtimes.python;
  return (
    <div className="stack">
      <ChoiceGroup
        label="Serve runtime"
        choices={RUNTIMES}
        picked={kind}
        onPick={(id) => void save({ runtime: id })}
        testIdPrefix="runtime-"
        detail={(id) => {
          if (id === 'external') return null;
          const found = runtimeFinding(id, runtimes);
          return <span className={`small runtime-finding ${found ? (found.ok ? 'ok' : 'bad') : ''}`}>{found ? `${found.ok ? '✓' : '✕'} ${found.text}` : sglang?.detecting ? 'Looking…' : ''}</span>;
        }}
      />
      <div className="row">
        <button className="btn" disabled={sglang?.detecting} onClick={() => void detect('serve.detectRuntimes', { refresh: true })}>
          {sglang?.detecting ? 'Detecting…' : 'Detect again'}
        </button>
        {runtimes?.notes[0] && <span className="small muted">{runtimes.notes[0]}</span>}
      </div>
      {sglang && (showInstall || sglang.install.state !== 'idle') && <InstallPanel s={sglang} />}
      {kind === 'external' && (
        <div className="row">
          <input type="text" aria-label="Serve URLs" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="http://127.0.0.1:30000" style={{ flex: 1, minWidth: 240 }} />
          <button
            className="btn"
            onClick={() =>
              void save({
                externalServeUrls: url
                  .split(/[,\s]+/)
                  .filter(Boolean)
                  .map((u) => (/^https?:\/\//.test(u) ? u : `http://${u}`)),
              })
            }
          >
            Save URL
          </button>
        </div>
      )}
      <h3 style={{ margin: '4px 0 0' }}>Checkpoint</h3>
      <p className="muted small" style={{ margin: 0 }}>
        Qwen3.6-35B-A3B-FP8: the weights the serve loads, and the tokenizer the miner proves with (an external serve needs it here too). Point to your copy, or leave empty to download into the panel's
        data folder.
      </p>
      <div className="row">
        <input
          type="text"
          aria-label="Checkpoint folder"
          value={dir}
          onChange={(e) => setDir(e.target.value)}
          placeholder="/path/to/Qwen3.6-35B-A3B-FP8 (empty: the data folder)"
          style={{ flex: 1, minWidth: 240 }}
        />
        <button className="btn" onClick={() => void applyFolder()}>
          Use this folder
        </button>
      </div>
      {folder && !folder.complete && (
        <div className={folder.ok ? 'card small' : 'error-box'} data-testid="folder-check">
          {folder.ok ? '✓ ' : ''}
          {folder.sentence}
        </div>
      )}
      {/* Short of room by the catalog's estimate: still red above, but the download itself measures the exact need and refuses in words. */}
      {checkpoint && (
        <CheckpointCard
          c={checkpoint}
          canDownload={downloadAllowed && (folder?.usable ?? false)}
          whyNot={!downloadAllowed ? 'This hardware cannot mine: nothing to download for it.' : folder && !folder.usable ? 'This folder cannot take the download: see above.' : null}
        />
      )}
      <ActionError error={error ?? detectError ?? folderError} />
    </div>
  );
}
