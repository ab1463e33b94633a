// Plain values out of @polkadot/types codecs, without generated augmentation for subtensor.
// u64 values beyond 2^53 come back from toJSON as hex strings: Number()/BigInt() read both forms.
import type { Codec } from '@polkadot/types/types';

export const num = (c: Codec | undefined): number => Number(c?.toString() ?? 0);
export const big = (c: Codec | undefined): bigint => BigInt(c?.toString() ?? 0);
export const bool = (c: Codec | undefined): boolean => c?.toJSON() === true;
export const numVec = (c: Codec | undefined): number[] => ((c?.toJSON() as (number | string)[] | null) ?? []).map(Number);
export const bigVec = (c: Codec | undefined): bigint[] => ((c?.toJSON() as (number | string)[] | null) ?? []).map((v) => BigInt(v));
export const boolVec = (c: Codec | undefined): boolean[] => ((c?.toJSON() as boolean[] | null) ?? []).map((b) => b === true);
/** AccountId storage defaults to the all-zero account: treat it as "none". */
export const account = (c: Codec | undefined): string | null => (!c || c.toU8a().every((b) => b === 0) ? null : c.toString());
