// Chart colours come from the theme (CSS variables), so each theme picks its own palette with at
// least 4.5:1 contrast against its card background (checked in test/unit/renderer/chart-colors.test.ts).

export const SERIES_VARS = ['--series-1', '--series-2', '--series-3', '--series-4', '--series-5', '--series-6'] as const;

export interface ChartTheme {
  series: string[];
  text: string;
  grid: string;
  gate: string;
  /** Marks of a lesser alarm than a gate (a power cap shaded on the GPU chart). */
  warn: string;
  panel: string;
}

export function readChartTheme(el: Element = document.documentElement): ChartTheme {
  const cs = getComputedStyle(el);
  const v = (name: string, fallback: string) => cs.getPropertyValue(name).trim() || fallback;
  return {
    series: SERIES_VARS.map((n, i) => v(n, ['#34d399', '#60a5fa', '#f472b6', '#fbbf24', '#a78bfa', '#2dd4bf'][i]!)),
    text: v('--muted', '#9aa6c1'),
    grid: v('--border', '#26314d'),
    gate: v('--bad', '#f87171'),
    warn: v('--warn', '#fbbf24'),
    panel: v('--panel', '#121a2e'),
  };
}

/** WCAG relative luminance contrast of two #rrggbb colours. */
export function contrastRatio(a: string, b: string): number {
  const lum = (hex: string) => {
    const n = hex.replace('#', '');
    const ch = [0, 2, 4].map((i) => parseInt(n.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
    return 0.2126 * ch[0]! + 0.7152 * ch[1]! + 0.0722 * ch[2]!;
  };
  const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p) as [number, number];
  return (x + 0.05) / (y + 0.05);
}
