// The health gate's verdict on one engine's serve (issue 32): withdrawn with its cause, or the
// KV-cache use the heartbeat reports to the gateway.
import type { MinerSnapshot } from '../../../../shared/miner.ts';
import { num } from '../common/format.ts';

/** The health gate's word on this engine's serve, and the KV-cache use the heartbeat reports. */
export function ServeHealth({ m, workers = 1 }: { m: MinerSnapshot; workers?: number }) {
  const h = m.serveHealth;
  if (!h) return null;
  return (
    <>
      {h.withdrawn && (
        <div className="error-box" role="status" data-testid="serve-withdrawn">
          withdrawn: serve unhealthy{h.cause ? ` (${h.cause})` : ''}
          {h.since !== null ? `, since ${new Date(h.since).toLocaleTimeString()}` : ''}. This engine&apos;s legs drained and are not dialed;{' '}
          {workers > 1 ? 'requests go to the other workers of this rig.' : 'this rig serves nothing and earns nothing until they are back.'} They come back after two good health probes in a row.
        </div>
      )}
      {h.kv && (
        <p className="small muted" data-testid="serve-kv">
          KV cache, now: {num(h.kv.used)} tokens held{h.kv.limit ? ` of ${num(h.kv.limit)} (${(100 * (h.kv.frac ?? 0)).toFixed(1)} %)` : ''} · {h.kv.reqs} running, {h.kv.waiting} waiting · sent to the
          gateway with each heartbeat
        </p>
      )}
    </>
  );
}
