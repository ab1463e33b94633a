import type { TrimStatus } from '../../../shared/serve.ts';

/**
 * The trim hook prints one banner at interpreter start:
 * `[engy] hidden-states trim armed (...)` or `[engy] hidden-states trim not armed: <why>`.
 */
export function trimStatusOfLine(line: string): TrimStatus | null {
  const notArmed = /\[engy\][^\n]*trim not armed:?\s*(.*)$/.exec(line);
  if (notArmed) return { state: 'not-armed', detail: (notArmed[1] ?? '').trim() || 'the hook did not say why' };
  const armed = /\[engy\][^\n]*trim armed\s*(.*)$/.exec(line);
  if (armed) return { state: 'armed', detail: (armed[1] ?? '').trim() };
  return null;
}
