import type { TrimStatus } from '../../../shared/serve.ts';
import { parseTrimLogLine } from './trim-module.ts';

/** The trim hook's start-up banner (ours or upstream's) as the snapshot's trim status; null for other lines. */
export function trimStatusOfLine(line: string): TrimStatus | null {
  const t = parseTrimLogLine(line);
  if (!t) return null;
  const on = t.sglangVersion === 'unknown' ? '' : ` on sglang ${t.sglangVersion}`;
  return t.armed ? { state: 'armed', detail: `armed${on}` } : { state: 'not-armed', detail: `${t.reason || 'the hook did not say why'}${on ? ` (${on.trim()})` : ''}` };
}
