import { useState } from 'react';
import type { FitReason, GpuInfo, HardwareReport, ServeEnginePlan } from '../../../../shared/hardware.ts';
import { engineApi, useSnapshot } from '../../stores/engine-store.ts';
import { gib, kTokens, num } from '../common/format.ts';
import { goToFix } from '../preflight/fix-target.ts';

const VERDICT_TEXT = { ready: 'Ready to mine', 'ready-with-limits': 'Ready, with limits', unsupported: 'Cannot mine on this hardware' } as const;
const VERDICT_CLASS = { ready: 'ready', 'ready-with-limits': 'limits', unsupported: 'unsupported' } as const;

function Reasons({ reasons }: { reasons: FitReason[] }) {
  return (
    <ul className="reasons" aria-label="Reasons">
      {reasons.map((r, i) => (
        <li key={i}>
          <span className={`dot ${r.severity}`} role="img" aria-label={r.severity} />
          <span>{r.text}</span>
        </li>
      ))}
    </ul>
  );
}

function GpuCard({ gpu, report }: { gpu: GpuInfo; report: HardwareReport }) {
  const inPlan = report.plan?.engines.find((e) => e.gpuIndices.includes(gpu.index));
  const fp8 = gpu.computeCap !== null && Number(gpu.computeCap) >= 8.9;
  const usedPct = gpu.memoryTotalMiB > 0 ? (gpu.memoryUsedMiB / gpu.memoryTotalMiB) * 100 : 0;
  return (
    <div className="card" data-testid="gpu-card">
      <div className="spread">
        <b>
          GPU {gpu.index} · {gpu.name}
        </b>
        {gpu.vendor !== 'nvidia' ? (
          <span className="badge neutral">not NVIDIA</span>
        ) : !fp8 ? (
          <span className="badge bad">no FP8</span>
        ) : inPlan ? (
          <span className="badge ok">engine {inPlan.index}</span>
        ) : (
          <span className="badge neutral">not used</span>
        )}
      </div>
      <div className="meter" style={{ margin: '10px 0 4px' }} aria-label={`memory used ${usedPct.toFixed(0)}%`}>
        <span style={{ width: `${usedPct}%` }} />
      </div>
      <div className="small muted" style={{ marginBottom: 8 }}>
        {gib(gpu.memoryUsedMiB)} used of {gib(gpu.memoryTotalMiB)}
      </div>
      <dl className="kv">
        <dt>Compute capability</dt>
        <dd>{gpu.computeCap ?? 'unknown'}</dd>
        <dt>Driver</dt>
        <dd>{gpu.driverVersion ?? 'unknown'}</dd>
        <dt>Temperature</dt>
        <dd>{gpu.temperatureC === null ? '—' : `${gpu.temperatureC} °C`}</dd>
        <dt>Power</dt>
        <dd>
          {gpu.powerDrawW === null ? '—' : `${gpu.powerDrawW.toFixed(0)} W`} / {gpu.powerLimitW === null ? '—' : `${gpu.powerLimitW.toFixed(0)} W limit`}
        </dd>
        <dt>PCIe</dt>
        <dd>{gpu.pcieGen === null ? '—' : `Gen ${gpu.pcieGen} x${gpu.pcieWidth ?? '?'}`}</dd>
      </dl>
    </div>
  );
}

/** One card's memory as the plan spends it: weights, the per-request state pool, the KV pool, the reserve. */
function MemoryBar({ e, vramGiB }: { e: ServeEnginePlan; vramGiB: number }) {
  const a = e.arithmetic;
  const perCardUsable = a.usableVramGiB / e.tp;
  const weights = (a.weightsGiB - e.cpuOffloadGb) / e.tp;
  const kv = (a.tokensThatFit * a.kvBytesPerToken) / 1024 ** 3;
  const state = Math.max(0, perCardUsable - weights - kv);
  const reserve = Math.max(0, vramGiB - perCardUsable);
  const parts = [
    { label: 'weights', v: weights, color: '#60a5fa' },
    { label: 'request state', v: state, color: '#a78bfa' },
    { label: 'KV cache', v: kv, color: '#34d399' },
    { label: 'reserve', v: reserve, color: '#64748b' },
  ];
  const total = parts.reduce((s, p) => s + p.v, 0);
  return (
    <div>
      <div className="membar" role="img" aria-label={parts.map((p) => `${p.label} ${p.v.toFixed(1)} GiB`).join(', ')}>
        {parts.map((p) => (
          <span key={p.label} style={{ width: `${(p.v / total) * 100}%`, background: p.color }}>
            {p.v / total > 0.12 ? `${p.v.toFixed(1)} GiB` : ''}
          </span>
        ))}
      </div>
      <div className="legend">
        {parts.map((p) => (
          <span key={p.label}>
            <i style={{ background: p.color }} />
            {p.label} {p.v.toFixed(1)} GiB
          </span>
        ))}
      </div>
    </div>
  );
}

function EnginePlanCard({ e, report }: { e: ServeEnginePlan; report: HardwareReport }) {
  const a = e.arithmetic;
  const gpu = report.gpus.find((g) => g.index === e.gpuIndices[0]);
  const flags = [
    `--tp-size ${e.tp}`,
    `--mem-fraction-static ${e.memFractionStatic}`,
    `--kv-cache-dtype ${e.kvCacheDtype}`,
    `--context-length ${e.contextLength}`,
    `--max-running-requests ${e.maxRunningRequests}`,
    `--chunked-prefill-size ${e.chunkedPrefillSize}`,
    ...(e.cpuOffloadGb ? [`--cpu-offload-gb ${e.cpuOffloadGb}`] : []),
    ...e.extraArgs,
  ];
  const env = Object.entries(e.env).map(([k, v]) => `${k}=${v}`);
  return (
    <div className="card stack" data-testid="engine-plan">
      <div className="spread">
        <b>
          Engine {e.index}: GPU {e.gpuIndices.join(' + ')} · tp{e.tp}
        </b>
        <span className="badge info">declares {e.declaredInflight} concurrent</span>
      </div>
      {gpu && <MemoryBar e={e} vramGiB={gpu.memoryTotalMiB / 1024} />}
      <dl className="kv">
        <dt>Weights</dt>
        <dd>
          {a.weightsGiB} GiB{e.tp > 1 ? ` (${(a.weightsGiB / e.tp).toFixed(1)} GiB per card)` : ''}
          {e.cpuOffloadGb ? `, ${e.cpuOffloadGb} GB offloaded to RAM` : ''}
        </dd>
        <dt>KV cache per token</dt>
        <dd>{(a.kvBytesPerToken / 1024).toFixed(0)} KiB per card (FP8, 10 of 40 layers keep KV)</dd>
        <dt>State per request</dt>
        <dd>{a.perRequestStateMiB.toFixed(0)} MiB per card (30 linear-attention layers)</dd>
        <dt>Tokens that fit</dt>
        <dd>
          ≈ {kTokens(a.tokensThatFit)} → context {num(e.contextLength)}
          {e.contextLimited ? (
            <span className="badge limit" style={{ marginLeft: 8 }}>
              limited
            </span>
          ) : null}
        </dd>
      </dl>
      <div>
        <h3>Serve flags</h3>
        <div className="cmd">{[...env, ...flags].join(' ')}</div>
      </div>
    </div>
  );
}

export function HardwarePanel() {
  const report = useSnapshot('hardware');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const recheck = async () => {
    setBusy(true);
    setError(null);
    const r = await engineApi().invoke('hardware.report', { refresh: true });
    if (!r.ok) setError(r.error.message);
    setBusy(false);
  };
  if (!report) {
    return (
      <div className="card" aria-busy="true">
        Checking the hardware: asking nvidia-smi for the GPUs and measuring the host…
      </div>
    );
  }
  // A rig whose only limit is the disk can mine once there is room: say that, not "with limits".
  const diskShort = report.space != null && !report.space.ok && report.verdict !== 'unsupported';
  const onlyDisk = diskShort && report.reasons.filter((r) => r.severity === 'limit').length === 1;
  const headline = onlyDisk ? 'Ready to mine once the checkpoint fits on disk' : VERDICT_TEXT[report.verdict];
  return (
    <section className="stack" aria-label="Hardware check" data-testid="hardware">
      <div className="card">
        <div className="spread">
          <div className={`verdict ${VERDICT_CLASS[report.verdict]}`}>
            <div className="big-icon" aria-hidden="true">
              {report.verdict === 'ready' ? '✓' : report.verdict === 'unsupported' ? '✕' : '!'}
            </div>
            <div>
              <h2 style={{ margin: 0 }} data-testid="verdict">
                {headline}
              </h2>
              <div className="muted small">
                {report.host.hostname} · {report.host.os} · {report.host.cpus} cores · {report.host.ramGiB.toFixed(0)} GiB RAM ·{' '}
                {report.host.diskFreeGiB === null ? 'disk unknown' : `${report.host.diskFreeGiB.toFixed(0)} GiB free`}
                {report.cudaVersion ? ` · CUDA ${report.cudaVersion}` : ''}
              </div>
            </div>
          </div>
          <button className="btn" onClick={() => void recheck()} disabled={busy}>
            {busy ? 'Checking…' : 'Check again'}
          </button>
        </div>
        <div style={{ marginTop: 14 }}>
          {/* The disk limit is said once, in the box below with its button. */}
          <Reasons reasons={diskShort ? report.reasons.filter((r) => !r.text.startsWith('Checkpoint disk: ')) : report.reasons} />
        </div>
        {diskShort && (
          <p className="error-box" data-testid="hardware-disk">
            {report.space!.sentence}{' '}
            <button className="btn" onClick={() => goToFix({ page: 'settings', field: 'checkpointDir' })}>
              Choose the checkpoint folder
            </button>
          </p>
        )}
        {error && <p className="error-box">{error}</p>}
      </div>
      {report.gpus.length > 0 && (
        <>
          <h3>GPUs</h3>
          <div className="grid cols-2">
            {report.gpus.map((g) => (
              <GpuCard key={`${g.vendor}-${g.index}`} gpu={g} report={report} />
            ))}
          </div>
        </>
      )}
      {report.plan && (
        <>
          <h3>Serve plan · MAX_INFLIGHT {report.plan.maxInflight}</h3>
          <div className="card">
            <ul className="reasons">
              {report.plan.rationale.map((r, i) => (
                <li key={i}>
                  <span className="dot ok" />
                  <span>{r}</span>
                </li>
              ))}
            </ul>
          </div>
          <div className="grid cols-2">
            {report.plan.engines.map((e) => (
              <EnginePlanCard key={e.index} e={e} report={report} />
            ))}
          </div>
        </>
      )}
    </section>
  );
}
