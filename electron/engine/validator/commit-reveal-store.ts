// What this validator knows about its commit-reveal commits, beside the state file: the commit it is sending
// (the intent, written before the extrinsic so a restart can recognise its own commit on chain instead of
// committing twice), the commits that landed and wait for their reveal, and the outcome of the last reveal.
// Read field by field like the state file: a poisoned entry is dropped, never trusted.
import { readFileSync } from 'node:fs';
import type { HotkeyWeight, SubmissionKind } from '../../../shared/validator.ts';
import { writeFileAtomic } from '../lib/atomic-file.ts';
import { isWeightVector } from './payload-verify.ts';

export interface CommitRecord {
  epochIndex: number;
  kind: SubmissionKind;
  digest: string | null;
  /** The hotkey vector behind the commit (the state's cache moves to it once the commit is adopted). */
  weights: HotkeyWeight[];
  uids: number[];
  values: number[];
  revealRound: number;
  revealEpochBlock: number;
  expectedRevealBlock: number;
  /** Block read before sending. */
  block: number;
  /** Inclusion block; null while only an intent. */
  commitBlock: number | null;
  /** The ciphertext, hex without 0x: how the commit is recognised in TimelockedWeightCommits. */
  commitHex: string;
  at: number;
}

export interface RevealResult {
  epochIndex: number;
  revealRound: number;
  checkedBlock: number;
  landed: boolean;
  detail: string;
}

export interface CommitRevealStore {
  intent: CommitRecord | null;
  pending: CommitRecord[];
  lastReveal: RevealResult | null;
}

/** The chain keeps at most 10 unrevealed commits per hotkey; a few more here covers commits it dropped. */
export const MAX_PENDING_RECORDS = 16;

export const EMPTY_STORE: CommitRevealStore = { intent: null, pending: [], lastReveal: null };

export function commitStorePath(statePath: string): string {
  return `${statePath.replace(/\.json$/, '')}.commit-reveal.json`;
}

const nat = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const u16s = (v: unknown): v is number[] => Array.isArray(v) && v.length <= 65536 && v.every((x) => nat(x) && x <= 0xffff);
const KINDS: readonly string[] = ['fresh', 'cached', 'standby:cached', 'standby:burn'];

function record(v: unknown): CommitRecord | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  const ok =
    nat(o.epochIndex) &&
    typeof o.kind === 'string' &&
    KINDS.includes(o.kind) &&
    (o.digest === null || (typeof o.digest === 'string' && /^[0-9a-f]{64}$/.test(o.digest))) &&
    isWeightVector(o.weights) &&
    u16s(o.uids) &&
    u16s(o.values) &&
    o.uids.length === o.values.length &&
    nat(o.revealRound) &&
    nat(o.revealEpochBlock) &&
    nat(o.expectedRevealBlock) &&
    nat(o.block) &&
    (o.commitBlock === null || nat(o.commitBlock)) &&
    typeof o.commitHex === 'string' &&
    o.commitHex.length <= 10_000 &&
    /^([0-9a-f]{2})+$/.test(o.commitHex) &&
    nat(o.at);
  return ok ? (o as unknown as CommitRecord) : null;
}

function reveal(v: unknown): RevealResult | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const o = v as Record<string, unknown>;
  return nat(o.epochIndex) && nat(o.revealRound) && nat(o.checkedBlock) && typeof o.landed === 'boolean' && typeof o.detail === 'string' && o.detail.length < 1000
    ? (o as unknown as RevealResult)
    : null;
}

export function readCommitStore(path: string): { store: CommitRevealStore; dropped: number } {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return { store: { ...EMPTY_STORE, pending: [] }, dropped: 0 };
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return { store: { ...EMPTY_STORE, pending: [] }, dropped: 1 };
  const d = data as Record<string, unknown>;
  let dropped = 0;
  const intent = d.intent === null || d.intent === undefined ? null : record(d.intent);
  if (d.intent && !intent) dropped++;
  const rawPending = Array.isArray(d.pending) ? d.pending.slice(0, MAX_PENDING_RECORDS) : [];
  const pending = rawPending.map(record).filter((r): r is CommitRecord => r !== null);
  dropped += rawPending.length - pending.length;
  const lastReveal = d.lastReveal === null || d.lastReveal === undefined ? null : reveal(d.lastReveal);
  if (d.lastReveal && !lastReveal) dropped++;
  return { store: { intent, pending, lastReveal }, dropped };
}

export function writeCommitStore(path: string, s: CommitRevealStore): void {
  const body: CommitRevealStore = { intent: s.intent, pending: s.pending.slice(-MAX_PENDING_RECORDS), lastReveal: s.lastReveal };
  writeFileAtomic(path, JSON.stringify(body) + '\n', 0o600);
}
