// Sign, send and wait for inclusion, turning every way it can end into a SubmitOutcome the UI can show:
// included (success or ExtrinsicFailed by name), refused by the pool (1010...), or no answer.
import type { ApiPromise } from '@polkadot/api';
import type { SubmittableResult } from '@polkadot/api';
import type { SubmittableExtrinsic } from '@polkadot/api/types';
import { describeModuleError, describePoolRejection, isPoolRejection } from './chain-errors.ts';
import { apiSignerFor } from './key-signer.ts';
import type { KeySigner, SubmitOutcome } from './ports.ts';
import { errorMessage } from '../../../shared/errors.ts';

export interface SubmitOptions {
  /** Give up waiting for inclusion after this long (the tx may still land: re-read state before resubmitting). */
  timeoutMs: number;
  /** Mortality in blocks; 128 mirrors the bittensor SDK. */
  era: number;
}

export const TRANSPORT_TEXT = {
  timeout: 'The chain did not confirm the transaction in time. It may still land: the app re-reads the chain before trying again.',
  disconnected: 'The connection to the chain dropped before the transaction was confirmed. It may still land: the app re-reads the chain before trying again.',
} as const;

function outcomeOfResult(api: ApiPromise, r: SubmittableResult): SubmitOutcome | null {
  const extrinsicHash = r.txHash.toHex();
  const { status } = r;
  if (status.isInBlock || status.isFinalized) {
    const blockHash = (status.isInBlock ? status.asInBlock : status.asFinalized).toHex();
    const e = r.dispatchError;
    if (e) {
      if (e.isModule) {
        const meta = api.registry.findMetaError(e.asModule);
        const text = describeModuleError(meta.name, meta.docs.join(' '));
        return { ok: false, kind: 'dispatch', code: text.code, message: text.message, extrinsicHash };
      }
      const text = describeModuleError(e.type);
      return { ok: false, kind: 'dispatch', code: e.type, message: text.message, extrinsicHash };
    }
    return { ok: true, extrinsicHash, blockHash, blockNumber: r.blockNumber?.toNumber() ?? -1 };
  }
  if (status.isInvalid || status.isDropped || status.isUsurped) {
    return {
      ok: false,
      kind: 'pool',
      code: status.type,
      message: 'The node dropped the transaction before it was included. The app will rebuild it and try again.',
      extrinsicHash,
    };
  }
  return null;
}

export function submitAndWait(api: ApiPromise, tx: SubmittableExtrinsic<'promise'>, key: KeySigner, opts: SubmitOptions): Promise<SubmitOutcome> {
  return new Promise<SubmitOutcome>((resolve) => {
    let settled = false;
    let unsub: (() => void) | undefined;
    // Known once signed (signAndSend signs the tx in place), so even a drop before the first status names it.
    const hashOf = () => (tx.isSigned ? tx.hash.toHex() : undefined);
    let extrinsicHash: string | undefined;
    const finish = (o: SubmitOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      api.off('disconnected', onDisconnect);
      unsub?.();
      resolve(o);
    };
    const withHash = (): { extrinsicHash?: string } => {
      const h = extrinsicHash ?? hashOf();
      return h ? { extrinsicHash: h } : {};
    };
    const transport = (code: keyof typeof TRANSPORT_TEXT): SubmitOutcome => ({
      ok: false,
      kind: 'transport',
      code,
      message: TRANSPORT_TEXT[code],
      ...withHash(),
    });
    const timer = setTimeout(() => finish(transport('timeout')), opts.timeoutMs);
    const onDisconnect = () => finish(transport('disconnected'));
    api.once('disconnected', onDisconnect);

    // nonce -1: AccountNonceApi, which counts what already waits in the pool.
    tx.signAndSend(key.address, { signer: apiSignerFor(api.registry, key), nonce: -1, era: opts.era }, (r) => {
      extrinsicHash = r.txHash.toHex();
      const o = outcomeOfResult(api, r);
      if (o) finish(o);
    }).then(
      (u) => {
        unsub = u;
        if (settled) u();
      },
      (e: unknown) => {
        const raw = errorMessage(e);
        if (isPoolRejection(raw)) {
          const text = describePoolRejection(raw);
          finish({ ok: false, kind: 'pool', code: text.code, message: text.message, ...withHash() });
        } else if (api.isConnected) {
          finish({
            ok: false,
            kind: 'transport',
            code: 'rpc-error',
            message: `The node answered with an error (${raw}). Try again; if it persists, pick another endpoint.`,
            ...withHash(),
          });
        } else {
          finish(transport('disconnected'));
        }
      },
    );
  });
}
