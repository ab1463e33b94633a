import { useState } from 'react';
import type { HardwareAlternative, HardwareReport } from '../../../../shared/hardware.ts';
import { engineApi, useSnapshot } from '../../stores/engine-store.ts';

/** τ per day, and in the chosen currency when a τ price is known. */
function perDay(taoPerDay: number, perTao: number | null, currency: string): string {
  const t = `${taoPerDay < 0.01 && taoPerDay > 0 ? taoPerDay.toPrecision(2) : taoPerDay.toFixed(2)} τ per day`;
  return perTao === null
    ? t
    : `${t} (about ${(taoPerDay * perTao).toLocaleString('en-US', { maximumFractionDigits: 2, minimumFractionDigits: 2 })} ${currency.toUpperCase()} at 1 τ = ${perTao} ${currency.toUpperCase()})`;
}

function AlternativeCard({ a }: { a: HardwareAlternative }) {
  const price = useSnapshot('price');
  const e = a.expected;
  return (
    <div className="card stack" style={{ gap: 8 }} data-testid={`alternative-${a.id}`}>
      <div className="spread">
        <b>{a.title}</b>
        {a.id === 'offload' ? (
          <span className={`badge ${a.onThisMachine ? 'limit' : 'bad'}`}>{a.onThisMachine ? 'runs here, slowly' : 'not enough RAM here'}</span>
        ) : (
          <span className="badge ok">mines</span>
        )}
      </div>
      <p className="small" style={{ margin: 0 }}>
        {a.summary}
      </p>
      <dl className="kv">
        <dt>Engines</dt>
        <dd>{a.plan.engines.map((e) => `GPU ${e.gpuIndices.join('+')} tp${e.tp}, context ${e.contextLength.toLocaleString('en-US')} tokens`).join('; ')}</dd>
        <dt>Declares</dt>
        <dd>{a.plan.maxInflight} concurrent requests</dd>
        {a.ramNeedGiB !== null && (
          <>
            <dt>Host RAM needed</dt>
            <dd>about {a.ramNeedGiB} GiB</dd>
          </>
        )}
        {a.speed && (
          <>
            <dt>Expected speed</dt>
            <dd>{a.speed}</dd>
          </>
        )}
        <dt>Would earn</dt>
        <dd data-testid={`alternative-earnings-${a.id}`}>
          <b>{e.taoPerDay === null ? 'not enough data' : perDay(e.taoPerDay, price?.perTao ?? null, price?.currency ?? 'usd')}</b>
          {/* The bold line already says "not enough data": the basis below gives only the why. */}
          <div className="muted small">{e.taoPerDay === null ? e.basis.replace(/^not enough data: /, '') : e.basis}</div>
        </dd>
      </dl>
    </div>
  );
}

/** Cannot mine, or only with weights offloaded to RAM (too slow to qualify). */
export function tooSmall(report: HardwareReport): boolean {
  return report.verdict === 'unsupported' || (report.plan?.engines.some((e) => e.cpuOffloadGb > 0) ?? false);
}

/** A verdict that blocks mining gets ways out, as buttons: validate instead, or see what hardware would mine. */
export function HardwareChoices({ report, onMineAnyway = null }: { report: HardwareReport; onMineAnyway?: (() => void) | null }) {
  const [alts, setAlts] = useState<HardwareAlternative[] | null>(null);
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const validateInstead = async () => {
    const r = await engineApi().invoke('settings.update', { role: 'validate' });
    if (!r.ok) setError(r.error.message);
  };
  const showWhatWorks = async () => {
    setOpen(!open);
    if (alts) return;
    const r = await engineApi().invoke('hardware.alternatives', null);
    if (r.ok) setAlts(r.value);
    else setError(r.error.message);
  };
  if (!tooSmall(report)) return null;
  return (
    <div className="card stack" data-testid="hardware-choices">
      <b>
        {report.verdict === 'unsupported'
          ? 'This machine cannot mine. What now?'
          : "This machine would mine only slowly: part of the weights sit in RAM, so it is unlikely to pass the gateway's latency gates. What now?"}
      </b>
      <div className="row">
        <button className="btn primary" onClick={() => void validateInstead()}>
          Validate instead
        </button>
        <button className="btn" aria-expanded={open} onClick={() => void showWhatWorks()}>
          {open ? 'Hide what works' : 'Show what works'}
        </button>
        {onMineAnyway && (
          <button className="btn" onClick={onMineAnyway}>
            Mine anyway (slowly)
          </button>
        )}
      </div>
      <p className="muted small">The light validator needs no GPU: it checks miners' proofs on the CPU and puts weights on chain. Or see which hardware mines, planned the same way as this check.</p>
      {open && !alts && !error && <p className="small muted">Planning…</p>}
      {open && alts && (
        <div className="grid cols-2" data-testid="alternatives">
          {alts.map((a) => (
            <AlternativeCard key={a.id} a={a} />
          ))}
        </div>
      )}
      {error && <div className="error-box">{error}</div>}
    </div>
  );
}
