import { useState } from 'react';
import type { Settings, SettingsPatch } from '../../../../shared/settings.ts';
import { engineApi, useSnapshot } from '../../stores/engine-store.ts';
import { CheckpointCard } from './checkpoint-card.tsx';

const RUNTIMES = [
  { id: 'python', title: 'Python (sglang installed here)', text: 'The panel starts and supervises sglang from your Python environment or its own venv.' },
  { id: 'docker', title: 'Docker', text: 'The pinned lmsysorg/sglang image with --gpus all; the checkpoint mounted read-only.' },
  { id: 'external', title: 'A serve I already run', text: 'The panel only watches it: give its URL (e.g. http://127.0.0.1:30000).' },
] as const;

export function ServeStep({ settings }: { settings: Settings }) {
  const [url, setUrl] = useState(settings.mining.externalServeUrls.join(', '));
  const [dir, setDir] = useState(settings.mining.checkpointDir ?? '');
  const [error, setError] = useState<string | null>(null);
  const checkpoint = useSnapshot('checkpoint');
  const save = async (patch: NonNullable<SettingsPatch['mining']>) => {
    const r = await engineApi().invoke('settings.update', { mining: patch });
    setError(r.ok ? null : r.error.message);
  };
  return (
    <div className="stack">
      <div className="choice" role="group" aria-label="Serve runtime">
        {RUNTIMES.map((r) => (
          <button key={r.id} aria-pressed={settings.mining.runtime === r.id} onClick={() => void save({ runtime: r.id })}>
            <b>{r.title}</b>
            <span className="muted small">{r.text}</span>
          </button>
        ))}
      </div>
      {settings.mining.runtime === 'external' && (
        <div className="row">
          <input type="text" aria-label="Serve URLs" value={url} onChange={(e) => setUrl(e.target.value)} placeholder="http://127.0.0.1:30000" style={{ flex: 1 }} />
          <button className="btn" onClick={() => void save({ externalServeUrls: url.split(/[,\s]+/).filter(Boolean) })}>
            Save URL
          </button>
        </div>
      )}
      <div className="row">
        <input type="text" aria-label="Checkpoint folder" value={dir} onChange={(e) => setDir(e.target.value)} placeholder="Folder of Qwen3.6-35B-A3B-FP8 (leave empty to download into the data folder)" style={{ flex: 1 }} />
        <button className="btn" onClick={() => void save({ checkpointDir: dir.trim() === '' ? null : dir.trim() })}>
          Use this folder
        </button>
      </div>
      {checkpoint && <CheckpointCard c={checkpoint} />}
      {error && <div className="error-box">{error}</div>}
    </div>
  );
}
