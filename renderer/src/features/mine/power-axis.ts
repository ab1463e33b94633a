// The power charts' vertical scale (the Engines panel's and the live GPU panel's): 10 % above the highest
// card's power limit, rounded up to 50 W, so the dashed limit line never sits on the top edge; 500 W
// while no card reports a limit.
export function powerAxisMaxW(maxLimitW: number): number {
  return maxLimitW > 0 ? Math.ceil((maxLimitW * 1.1) / 50) * 50 : 500;
}
