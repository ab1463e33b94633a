// The settings that operate the rig: endpoints, the GPUs the serve may use, the in-flight limit,
// the checkpoint folder and the log level. Each has the engine's own check and a reset.
import { useState } from 'react';
import { SUBNET_NETUID } from '../../../../shared/network.ts';
import { defaultSettings, LOG_LEVELS, type LogLevelSetting, type Settings } from '../../../../shared/settings.ts';
import { useSnapshot } from '../../stores/engine-store.ts';
import { saveSetting, TextSetting } from './setting-field.tsx';

const D = defaultSettings();
const orNull = (t: string) => (t.trim() === '' ? null : t.trim());
const urls = (t: string) => t.split(/[,\s]+/).filter(Boolean);

function GpuChoice({ s }: { s: Settings }) {
  const hw = useSnapshot('hardware');
  const [error, setError] = useState<string | null>(null);
  const cards = (hw?.gpus ?? []).filter((g) => g.vendor === 'nvidia');
  const chosen = s.mining.gpus;
  const save = async (gpus: number[] | null) => setError(await saveSetting({ mining: { gpus } }));
  const toggle = (index: number, on: boolean) => {
    const base = chosen ?? cards.map((g) => g.index);
    const next = on ? [...new Set([...base, index])].sort((a, b) => a - b) : base.filter((i) => i !== index);
    // Every card chosen is the same as no choice: keep "all" so a card added later is used too.
    void save(next.length === cards.length ? null : next);
  };
  return (
    <fieldset id="setting-gpus" tabIndex={-1} className="stack" style={{ gap: 6, border: 0, padding: 0, margin: 0 }}>
      <legend className="small">
        <b>GPUs for the serve</b> <span className="muted">The serve plan (and CUDA_VISIBLE_DEVICES) uses only these; applies on the next start.</span>
      </legend>
      {cards.length === 0 ? (
        <p className="muted small">{hw === undefined || hw === null ? 'Looking at the GPUs…' : 'No NVIDIA GPU found on this machine.'}</p>
      ) : (
        <div className="row">
          {cards.map((g) => (
            <label key={g.index} className="toggle">
              <input
                type="checkbox"
                checked={chosen === null || chosen.includes(g.index)}
                disabled={chosen !== null && chosen.length === 1 && chosen.includes(g.index)}
                onChange={(e) => toggle(g.index, e.target.checked)}
              />
              GPU {g.index}: {g.name} ({(g.memoryTotalMiB / 1024).toFixed(0)} GiB)
            </label>
          ))}
          <button className="btn" disabled={chosen === null} onClick={() => void save(null)}>
            Reset to default (all)
          </button>
        </div>
      )}
      {chosen !== null && chosen.some((i) => !cards.some((g) => g.index === i)) && cards.length > 0 && (
        <div className="small" style={{ color: 'var(--warn)' }}>
          Chosen GPU(s) {chosen.filter((i) => !cards.some((g) => g.index === i)).join(', ')} are not on this machine now.
        </div>
      )}
      {error && (
        <div className="small" role="alert" style={{ color: 'var(--bad)' }}>
          {error}
        </div>
      )}
    </fieldset>
  );
}

function LogLevel({ s }: { s: Settings }) {
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="stack" style={{ gap: 6 }}>
      <label className="toggle small" htmlFor="setting-logLevel">
        <b>Log level</b>
        <select id="setting-logLevel" value={s.logLevel} onChange={(e) => void saveSetting({ logLevel: e.target.value as LogLevelSetting }).then(setError)}>
          {LOG_LEVELS.map((l) => (
            <option key={l} value={l}>
              {l}
            </option>
          ))}
        </select>
        <button className="btn" disabled={s.logLevel === D.logLevel} onClick={() => void saveSetting({ logLevel: D.logLevel }).then(setError)}>
          Reset to default ({D.logLevel})
        </button>
      </label>
      <span className="muted small">Lines below this level are not kept from now on (the Logs page, the log file, diagnostics).</span>
      {error && (
        <div className="small" role="alert" style={{ color: 'var(--bad)' }}>
          {error}
        </div>
      )}
    </div>
  );
}

export function RigSettings({ s }: { s: Settings }) {
  const net = s.network;
  return (
    <>
      <section className="card stack" aria-label="Endpoints">
        <h2>Endpoints</h2>
        <p className="muted small" style={{ margin: 0 }}>
          {s.network === 'simulated' ? 'Simulated network (demo): these point at the local doubles.' : `Mainnet (finney, subnet ${SUBNET_NETUID}). A URL typed without its scheme gets the usual one.`}
        </p>
        {[
          {
            id: 'gatewayUrl' as const,
            path: 'mining.gatewayUrl' as const,
            label: 'Gateway',
            hint: 'where the miner dials out (ws:// or wss://)',
            saved: s.mining.gatewayUrl,
            defaultText: D.mining.gatewayUrl,
            patch: (gatewayUrl: unknown) => ({ mining: { gatewayUrl: gatewayUrl as string } }),
          },
          {
            id: 'chainUrl' as const,
            path: 'validating.chainUrl' as const,
            label: 'Chain',
            hint: 'a subtensor node, e.g. ws://127.0.0.1:9944 for your own',
            saved: s.validating.chainUrl,
            defaultText: D.validating.chainUrl,
            patch: (chainUrl: unknown) => ({ validating: { chainUrl: chainUrl as string } }),
          },
          {
            id: 'providerUrl' as const,
            path: 'validating.providerUrl' as const,
            label: 'Provider',
            hint: 'epoch results and earnings (http:// or https://)',
            saved: s.validating.providerUrl,
            defaultText: D.validating.providerUrl,
            patch: (providerUrl: unknown) => ({ validating: { providerUrl: providerUrl as string } }),
          },
        ].map((f) => (
          // The text goes as typed: shared/settings.ts checks each URL and adds a missing scheme.
          <TextSetting key={f.id} {...f} network={net} parse={(t) => t} />
        ))}
      </section>
      <section className="card stack" aria-label="Mining rig">
        <h2>Mining rig</h2>
        <GpuChoice s={s} />
        {[
          {
            id: 'maxInflightOverride' as const,
            path: 'mining.maxInflightOverride' as const,
            label: 'In-flight limit',
            hint: 'concurrent requests the miner declares; empty: what the serve plan allows',
            saved: s.mining.maxInflightOverride === null ? '' : String(s.mining.maxInflightOverride),
            placeholder: 'from the plan',
            parse: (t: string) => (t.trim() === '' ? null : /^-?\d+(\.\d+)?$/.test(t.trim()) ? Number(t.trim()) : t),
            patch: (maxInflightOverride: unknown) => ({ mining: { maxInflightOverride: maxInflightOverride as number | null } }),
          },
          {
            id: 'checkpointDir' as const,
            path: 'mining.checkpointDir' as const,
            label: 'Checkpoint folder',
            hint: "a folder holding Qwen3.6-35B-A3B-FP8; empty: the data folder's own copy",
            saved: s.mining.checkpointDir ?? '',
            placeholder: "the data folder's copy",
            parse: orNull,
            patch: (checkpointDir: unknown) => ({ mining: { checkpointDir: checkpointDir as string | null } }),
          },
          {
            id: 'externalServeUrls' as const,
            path: 'mining.externalServeUrls' as const,
            label: 'Serve URLs',
            hint: 'only for a serve you run yourself (runtime: external), comma-separated',
            saved: s.mining.externalServeUrls.join(', '),
            placeholder: 'http://127.0.0.1:30000',
            parse: urls,
            patch: (externalServeUrls: unknown) => ({ mining: { externalServeUrls: externalServeUrls as string[] } }),
          },
        ].map((f) => (
          // Empty is each one's default: the plan's limit, the data folder's copy, no external serve.
          <TextSetting key={f.id} {...f} network={net} defaultText="" />
        ))}
      </section>
      <section className="card stack" aria-label="Logging">
        <h2>Logging</h2>
        <LogLevel s={s} />
      </section>
    </>
  );
}
