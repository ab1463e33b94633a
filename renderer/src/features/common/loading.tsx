/** Shown while the engine's state has not arrived yet: never an empty state that would be false. */
export function Loading({ what }: { what: string }) {
  return (
    <div className="loading" role="status" aria-live="polite" data-testid="loading">
      <span className="spinner" aria-hidden="true" />
      Loading {what}…
    </div>
  );
}
