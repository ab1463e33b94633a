// TEST DOUBLE. The dev chain's block store, transaction pool and block production: every block applies the
// pool in order (nonce bump, SubtensorModule rules), writes that block's System.Events and snapshots storage.
import type { Header } from '@polkadot/types/interfaces';
import { polkadot } from '../../../electron/engine/lib/polkadot.ts';
import { Emitter } from '../../../electron/engine/lib/emitter.ts';
import { runToyEpoch } from './epoch.ts';
import { NOMINAL_BLOCK_MS } from './commit-reveal.ts';
import { applyRegister, applySetWeights, type DispatchResult } from './dispatch.ts';
import { checkExtrinsic, type PoolTx, type RpcError } from './extrinsic-check.ts';
import type { DevRuntime } from './runtime.ts';
import type { DevChainState, DevSubnet } from './state.ts';
import { projectStorage, type StorageSnapshot } from './storage.ts';

const { bnToU8a, compactToU8a, u8aConcat, u8aToHex } = polkadot('@polkadot/util');
const { blake2AsHex } = polkadot('@polkadot/util-crypto');

export interface DevBlock {
  number: number;
  hash: string;
  header: Header;
  extrinsics: string[];
  /** Dropped for old blocks (a non-archive node keeps recent state only). */
  storage: StorageSnapshot | null;
}

export type TxStatus = { ready: true } | { inBlock: string } | { finalized: string };

const KEEP_STATE_BLOCKS = 256;
const DISPATCH_INFO = { weight: { refTime: 100_000_000, proofSize: 4_096 }, class: 'Normal', paysFee: 'Yes' };

export class DevChain {
  readonly blocks: DevBlock[] = [];
  private readonly byHash = new Map<string, DevBlock>();
  private pool: PoolTx[] = [];
  private unfinalized: { hash: string; block: string }[] = [];
  private readonly blockEmitter = new Emitter<DevBlock>();
  readonly onBlock = this.blockEmitter.event;
  private readonly statusEmitter = new Emitter<{ hash: string; status: TxStatus }>();
  readonly onTxStatus = this.statusEmitter.event;
  /** Every extrinsic accepted into the pool, raw, for tests that decode what the client sent. */
  readonly submitted: PoolTx[] = [];

  readonly rt: DevRuntime;
  readonly state: DevChainState;
  /** When this chain produced its first block (the first epoch's emission counts from there). */
  private firstBlockAtMs: number | null = null;

  constructor(rt: DevRuntime, state: DevChainState) {
    this.rt = rt;
    this.state = state;
    this.seal([], new Uint8Array([0]));
  }

  get best(): DevBlock {
    const b = this.blocks[this.blocks.length - 1];
    if (!b) throw new Error('dev chain has no blocks');
    return b;
  }

  /**
   * How long an epoch's emission stands for, in ms of the chain's clock. On the nominal clock a block is
   * 12 s, so a tempo of them. On the wall clock (a fast demo chain: 1 s or 250 ms blocks) it is the time
   * the epoch took, so α per second of the chain's clock, and every per-day figure read from it, is
   * finney's and not 12 or 48 times that.
   */
  private epochSpanMs(s: DevSubnet): number {
    if (!this.state.wallClock) return s.tempo * NOMINAL_BLOCK_MS;
    const since = s.lastEpochAtMs ?? this.firstBlockAtMs ?? this.state.timestampMs;
    return Math.max(0, this.state.timestampMs - since);
  }

  /** Finality trails the best block by one. */
  get finalized(): DevBlock {
    return this.blocks[Math.max(0, this.blocks.length - 2)] ?? this.best;
  }

  get genesisHash(): string {
    return this.blocks[0]?.hash ?? '0x';
  }

  block(hashOrNumber?: string | number | null): DevBlock | undefined {
    if (hashOrNumber === undefined || hashOrNumber === null) return this.best;
    if (typeof hashOrNumber === 'number') return this.blocks[hashOrNumber];
    return this.byHash.get(hashOrNumber);
  }

  /** Storage at a block (best when omitted); undefined if the block is unknown or its state pruned. */
  storageAt(hash?: string | null): StorageSnapshot | undefined {
    return this.block(hash)?.storage ?? undefined;
  }

  pendingFor(address: string): number {
    return this.pool.filter((t) => t.signer === address).length;
  }

  pending(): readonly PoolTx[] {
    return this.pool;
  }

  submit(hex: string): { ok: true; hash: string } | { ok: false; error: RpcError } {
    const pending = new Map<string, number>();
    for (const t of this.pool) pending.set(t.signer, (pending.get(t.signer) ?? 0) + 1);
    const view = { genesisHash: this.genesisHash, best: this.best.number, hashOf: (n: number) => this.blocks[n]?.hash };
    const r = checkExtrinsic(this.rt, view, this.state, pending, hex);
    if (!r.ok) return r;
    this.pool.push(r.tx);
    this.submitted.push(r.tx);
    queueMicrotask(() => this.statusEmitter.fire({ hash: r.tx.hash, status: { ready: true } }));
    return { ok: true, hash: r.tx.hash };
  }

  /** Produce the next block from the pool. */
  produceBlock(): DevBlock {
    const txs = this.pool;
    this.pool = [];
    // Finality lags one block: the previous block's txs are finalized now. (polkadot-js drops an inBlock
    // status whose events it is still fetching when finalized arrives, so they must not come together.)
    const finalizing = this.unfinalized;
    this.unfinalized = [];
    for (const f of finalizing) this.statusEmitter.fire({ hash: f.hash, status: { finalized: f.block } });
    this.state.block = this.best.number + 1;
    this.state.timestampMs = Date.now();
    this.firstBlockAtMs ??= this.state.timestampMs;
    for (const s of this.state.subnets.values()) {
      if (this.state.block < s.lastEpochBlock + s.tempo) continue;
      s.lastEpochBlock = this.state.block;
      if (s.simulateEpochs) runToyEpoch(s, this.state.block, this.epochSpanMs(s));
      s.lastEpochAtMs = this.state.timestampMs;
    }
    this.state.commitReveal.onBlock(this.state);
    const records: Uint8Array[] = [];
    txs.forEach((tx, i) => {
      const result = this.dispatch(tx);
      this.state.account(tx.signer).nonce += 1;
      this.state.applied.push({
        block: this.state.block,
        signer: tx.signer,
        section: tx.call.kind === 'other' ? tx.call.section : 'subtensorModule',
        method: tx.call.kind === 'set_weights' ? 'set_weights' : tx.call.method,
        args: tx.call.kind === 'other' ? null : tx.call.args,
        error: result.ok ? null : result.error,
      });
      const events = result.ok
        ? [...result.events.map((e) => this.rt.encodeEvent(e.pallet, e.name, e.fields)), this.rt.encodeEvent('System', 'ExtrinsicSuccess', [DISPATCH_INFO])]
        : [this.rt.encodeEvent('System', 'ExtrinsicFailed', [{ Module: this.rt.moduleError('SubtensorModule', result.error) }, DISPATCH_INFO])];
      // EventRecord = phase ApplyExtrinsic(i) ‖ event ‖ topics (none).
      for (const ev of events) records.push(u8aConcat(new Uint8Array([0]), bnToU8a(i, { bitLength: 32 }), ev, new Uint8Array([0])));
    });
    const block = this.seal(
      txs.map((t) => t.hex),
      u8aConcat(compactToU8a(records.length), ...records),
    );
    for (const tx of txs) {
      this.statusEmitter.fire({ hash: tx.hash, status: { inBlock: block.hash } });
      this.unfinalized.push({ hash: tx.hash, block: block.hash });
    }
    return block;
  }

  private dispatch(tx: PoolTx): DispatchResult {
    switch (tx.call.kind) {
      case 'set_weights':
        return applySetWeights(this.state, tx.signer, tx.call.args);
      case 'register':
        return applyRegister(this.state, tx.signer, tx.call.args);
      case 'commit':
        return this.state.commitReveal.apply(this.state, tx.signer, tx.call.args);
      case 'other':
        // The double models SubtensorModule weights and registration only; anything else is a no-op success.
        return { ok: true, events: [] };
    }
  }

  private seal(extrinsics: string[], events: Uint8Array): DevBlock {
    const parent = this.blocks[this.blocks.length - 1];
    const number = parent ? parent.number + 1 : 0;
    const header: Header = this.rt.registry.createType('Header', {
      parentHash: parent?.hash ?? new Uint8Array(32),
      number,
      stateRoot: blake2AsHex(`dev-chain-state-${number}`),
      extrinsicsRoot: blake2AsHex(extrinsics.join(',')),
      digest: { logs: [] },
    });
    const block: DevBlock = {
      number,
      hash: u8aToHex(header.hash),
      header,
      extrinsics,
      storage: projectStorage(this.rt, this.state, events),
    };
    this.blocks.push(block);
    this.byHash.set(block.hash, block);
    const old = this.blocks[number - KEEP_STATE_BLOCKS];
    if (old) old.storage = null;
    this.blockEmitter.fire(block);
    return block;
  }
}
