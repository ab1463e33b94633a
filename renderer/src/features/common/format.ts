export const gib = (mib: number) => `${(mib / 1024).toFixed(1)} GiB`;
export const num = (n: number) => n.toLocaleString('en-US');
export function kTokens(n: number): string {
  return n >= 1_000_000 ? `${(n / 1_000_000).toFixed(2)}M tokens` : `${Math.round(n / 1000)}k tokens`;
}
export function ago(ts: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ts) / 1000));
  if (s < 60) return `${s} s ago`;
  // Whole units elapsed (floor): 3599 s is "59 min ago", never "60 min ago".
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  return `${Math.floor(s / 3600)} h ago`;
}

/** "3 min 32 s", "2 h 5 min", "4 d 3 h": durations that read at a glance. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  const part = (n: number, unit: string) => (n > 0 ? ` ${n} ${unit}` : '');
  if (s < 86_400) return `${Math.floor(s / 3600)} h${part(Math.floor((s % 3600) / 60), 'min')}`;
  return `${Math.floor(s / 86_400)} d${part(Math.floor((s % 86_400) / 3600), 'h')}`;
}

/** Local wall-clock time, with the date when it is not today. */
export function clock(ts: number, now = Date.now()): string {
  const d = new Date(ts);
  const sameDay = d.toDateString() === new Date(now).toDateString();
  const time = d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  return sameDay ? time : `${d.toLocaleDateString([], { month: 'short', day: 'numeric' })} ${time}`;
}

/** τ with enough digits to see small earnings, never scientific notation. */
export function tau(v: number | null): string {
  if (v === null) return '—';
  const a = Math.abs(v);
  return `${v.toFixed(a === 0 ? 2 : a >= 100 ? 2 : a >= 1 ? 4 : 6)} τ`;
}
