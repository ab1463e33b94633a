// The pre-flight checklist: every blocker between the user and Start, computed once in the engine
// (electron/engine/preflight) and shown as is by the Mine and Validate pages, so both always agree.

/** The Setup steps a Fix button can open (the data-testid `stage-<id>` on the Setup page). */
export type SetupStepId = 'role' | 'hardware' | 'serve' | 'hotkey' | 'registration' | 'minerkey';

/** The Settings fields a Fix button can focus (the element id `setting-<id>` on the Settings page). */
export type SettingsFieldId = 'gatewayUrl' | 'chainUrl' | 'providerUrl' | 'gpus' | 'maxInflightOverride' | 'checkpointDir' | 'logLevel' | 'externalServeUrls' | 'kwhPrice' | 'priceUrl';

export type FixTarget = { page: 'setup'; step: SetupStepId } | { page: 'settings'; field: SettingsFieldId };

export type PreflightCheckId = 'role' | 'hardware' | 'runtime' | 'checkpoint' | 'disk' | 'hotkey' | 'registration' | 'minerkey' | 'permit';

/** ok: clear; blocked: Start refuses; unknown: not known yet (counts as blocking: Start checks it live first). */
export type PreflightState = 'ok' | 'blocked' | 'unknown';

export interface PreflightCheck {
  id: PreflightCheckId;
  title: string;
  state: PreflightState;
  /** One sentence: what was found, and when not ok, what to do. */
  sentence: string;
  fix: { label: string; target: FixTarget } | null;
  /** Unknown because asking failed (not still being asked): shown as "could not check", never as "checking". */
  failed?: boolean;
}

export interface PreflightReport {
  role: 'mine' | 'validate';
  at: number;
  checks: PreflightCheck[];
  /** True when no check blocks: the only condition under which Start is enabled. */
  ready: boolean;
}

export interface PreflightSnapshot {
  mine: PreflightReport;
  validate: PreflightReport;
}

/** What the last mining run did, kept across restarts so a stopped Mine page is not empty. */
export interface MiningRunSummary {
  startedAt: number;
  stoppedAt: number;
  workers: number;
  lastPhase: string;
  lastDetail: string;
  ok: number;
  errors: number;
  cancelled: number;
  acceptanceRate: number | null;
  ttftP99Ms: number | null;
  tpotP99Ms: number | null;
  tokensPerSecond: number;
}

/** The probe wave's shape sent to the local serve before going live, and what it measured. */
export interface RehearsalResult {
  at: number;
  serveUrls: string[];
  concurrent: number;
  promptTokens: number;
  maxTokens: number;
  completed: number;
  failed: number;
  /** The first failure's cause, in plain words. */
  firstError: string | null;
  ttftP99Ms: number | null;
  tpotP99Ms: number | null;
  gates: { ttftP99Ms: number; tpotP99Ms: number };
  verdict: 'pass' | 'fail';
  /** Plain words: which gate it would fail and by how much, or that it passes with what margin. */
  forecast: string;
  durationMs: number;
}

/** The sentence Start refuses with: every blocker at once, each with its own sentence. */
export function blockerSentence(report: PreflightReport): string {
  const blockers = report.checks.filter((c) => c.state !== 'ok');
  const what = report.role === 'mine' ? 'Mining' : 'Validating';
  return `${what} cannot start until ${blockers.length === 1 ? 'this is fixed' : `these ${blockers.length} are fixed`}: ${blockers.map((c) => `${c.title}: ${c.sentence}`).join(' ')} The pre-flight checklist has a Fix button for each.`;
}
