// Buyer traffic through the gateway double for tests that watch where requests are routed and
// how many are accepted while a serve is killed and restarted (issue 32's health gate).
import type { GatewayDouble, ServeResult } from '../doubles/gateway/gateway-double.ts';

export interface Routed {
  workerId: string;
  sentAt: number;
  result: ServeResult;
}

/** Buyer traffic through the double, `concurrency` requests at a time, until stopped. */
export function traffic(gw: GatewayDouble, concurrency: number): { routed: Routed[]; stop(): Promise<void> } {
  const routed: Routed[] = [];
  let running = true;
  let n = 0;
  const lane = async (): Promise<void> => {
    while (running) {
      const i = n++;
      const r = gw.route({ messages: [{ role: 'user', content: `buyer ${i}: tell me about graphics cards` }], max_tokens: 6, engy_request_id: `buyer-${i}` }, i % 2 === 0);
      if (!r) {
        await new Promise((res) => setTimeout(res, 20));
        continue;
      }
      const sentAt = Date.now();
      routed.push({ workerId: r.workerId, sentAt, result: await r.done });
    }
  };
  const lanes = Array.from({ length: concurrency }, () => lane());
  return {
    routed,
    stop: async () => {
      running = false;
      await Promise.all(lanes);
    },
  };
}
