/** Appends and drops the oldest points beyond `cap`, so snapshots stay small however long the app runs. */
export function pushCapped<T>(series: T[], point: T, cap: number): void {
  series.push(point);
  if (series.length > cap) series.splice(0, series.length - cap);
}
