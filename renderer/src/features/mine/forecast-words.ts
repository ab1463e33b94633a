// The gate forecast as the Mine page says it. While the health gate holds the engine withdrawn it gets no
// traffic, so a forecast from the window before would read "on track" for a worker earning nothing.
import type { MinerSnapshot } from '../../../../shared/miner.ts';

export function forecastWords(m: Pick<MinerSnapshot, 'forecast' | 'serveHealth'>): { tone: 'ok' | 'neutral' | 'warn' | 'bad'; text: string } {
  if (m.serveHealth?.withdrawn) {
    return { tone: 'neutral', text: 'Gate forecast: none while withdrawn. This engine gets no traffic, so nothing is measured against the gates until it is back.' };
  }
  const f = m.forecast;
  const tone = f.status === 'on-track' ? 'ok' : f.status === 'no-data' ? 'neutral' : f.status === 'at-risk' ? 'warn' : 'bad';
  return { tone, text: `Gate forecast: ${f.text}` };
}
