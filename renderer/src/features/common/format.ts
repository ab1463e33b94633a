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
