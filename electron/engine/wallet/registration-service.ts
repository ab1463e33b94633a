// Registration of a hotkey on the subnet, paid by the coldkey: status (uid, permit, stake), the current
// cost and the coldkey's balance, then register_limit (a price cap the user sees) or burned_register.
// Pre-checks run before the coldkey is unlocked, so a doomed attempt costs no password and no KDF.
import type { ChainPort, KeySigner } from '../chain/ports.ts';
import { AppFailure } from '../../../shared/errors.ts';
import { SUBNET_NETUID } from '../../../shared/network.ts';
import type { RegistrationMode, RegistrationStatusSnapshot, RegistrationSuccess } from '../../../shared/wallet.ts';
import { formatTao } from '../../../shared/wallet.ts';
import { silentLogger, type Logger, type SecretRedactor } from '../lib/logger.ts';
import { readColdkeyInfo, withColdkeySigner } from './coldkey.ts';
import type { KdfLimits } from './nacl-keyfile.ts';
import { registrationFailure, registrationSentence, type RegistrationContext } from './registration-errors.ts';

export interface RegistrationServiceOptions {
  chain: ChainPort;
  netuid?: number;
  walletPath?: string;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  redactor?: SecretRedactor;
  /** Tests only. */
  kdf?: KdfLimits;
}

export interface StatusQuery {
  hotkey: string;
  /** Coldkey address for cost/balance; or `wallet` to read it from coldkeypub.txt. */
  coldkey?: string;
  wallet?: string;
}

/** How the coldkey signs: the btcli coldkey decrypted with its password, or a signer from elsewhere (browser wallet). */
export type ColdkeyAuthority = { kind: 'password'; wallet: string; password: string } | { kind: 'signer'; signer: KeySigner };

export interface RegisterRequest {
  hotkey: string;
  coldkey: ColdkeyAuthority;
  mode: RegistrationMode;
  /** register-limit: the most the user agreed to pay, rao. */
  maxCostRao?: bigint;
}

export class RegistrationService {
  private readonly chain: ChainPort;
  private readonly netuid: number;
  private readonly opts: RegistrationServiceOptions;
  private readonly log: Logger;

  constructor(opts: RegistrationServiceOptions) {
    this.chain = opts.chain;
    this.netuid = opts.netuid ?? SUBNET_NETUID;
    this.opts = opts;
    this.log = (opts.logger ?? silentLogger).child('registration');
  }

  private coldkeyAddress(q: { coldkey?: string; wallet?: string }): string | null {
    if (q.coldkey) return q.coldkey;
    if (!q.wallet) return null;
    return readColdkeyInfo({ wallet: q.wallet, ...(this.opts.walletPath ? { walletPath: this.opts.walletPath } : {}), ...(this.opts.env ? { env: this.opts.env } : {}) }).address;
  }

  async status(q: StatusQuery): Promise<RegistrationStatusSnapshot> {
    const coldkey = this.coldkeyAddress(q);
    const [neuron, facts, balance] = await Promise.all([
      this.chain.neuron(this.netuid, q.hotkey),
      this.chain.subnetFacts(this.netuid),
      coldkey ? this.chain.freeBalance(coldkey) : Promise.resolve(null),
    ]);
    return {
      registration: {
        netuid: this.netuid,
        hotkey: q.hotkey,
        registered: neuron.uid !== null,
        uid: neuron.uid,
        validatorPermit: neuron.validatorPermit,
        stakeRao: neuron.stakeRao.toString(),
        ...(neuron.immunityBlocksLeft !== undefined ? { immunityBlocksLeft: neuron.immunityBlocksLeft } : {}),
        block: facts.block,
      },
      quote: {
        netuid: this.netuid,
        costRao: facts.burnRao.toString(),
        coldkey,
        coldkeyFreeRao: balance === null ? null : balance.toString(),
        canAfford: balance === null ? null : balance >= facts.burnRao,
        block: facts.block,
      },
    };
  }

  /** The price and balance moved if the chain refused what the pre-check allowed: quote the current ones. */
  private async refreshContext(ctx: RegistrationContext): Promise<void> {
    try {
      const [facts, balance] = await Promise.all([this.chain.subnetFacts(this.netuid), this.chain.freeBalance(ctx.coldkey)]);
      ctx.costRao = facts.burnRao;
      ctx.balanceRao = balance;
    } catch {
      // Keep the quote from before sending; the sentence is still right in substance.
    }
  }

  async register(req: RegisterRequest): Promise<RegistrationSuccess> {
    if (req.mode === 'register-limit' && (req.maxCostRao === undefined || req.maxCostRao <= 0n))
      throw new AppFailure('bad-request', 'Set the most you are willing to pay for the registration (a price cap) and try again.');
    const coldkey = req.coldkey.kind === 'signer' ? req.coldkey.signer.address : this.coldkeyAddress({ wallet: req.coldkey.wallet });
    if (!coldkey) throw new AppFailure('wallet-not-found', 'This wallet has no coldkeypub.txt, so its coldkey address is unknown: restore it with `btcli w regen_coldkeypub`.');

    const [neuron, facts, balance] = await Promise.all([this.chain.neuron(this.netuid, req.hotkey), this.chain.subnetFacts(this.netuid), this.chain.freeBalance(coldkey)]);
    const ctx: RegistrationContext = { netuid: this.netuid, hotkey: req.hotkey, coldkey, costRao: facts.burnRao, balanceRao: balance, uid: neuron.uid };
    if (req.maxCostRao !== undefined) ctx.capRao = req.maxCostRao;
    const refuse = (code: string) => new AppFailure('chain-rejected', registrationSentence(code, ctx), code);
    if (neuron.uid !== null) throw refuse('HotKeyAlreadyRegisteredInSubNet');
    if (req.mode === 'register-limit' && facts.burnRao > req.maxCostRao!) throw refuse('RegistrationPriceLimitExceeded');
    if (balance < facts.burnRao) throw refuse('NotEnoughBalanceToStake');

    this.log.info(
      `registering ${req.hotkey} on subnet ${this.netuid} from ${coldkey} via ${req.mode} (cost ${formatTao(facts.burnRao)}${req.maxCostRao !== undefined ? `, cap ${formatTao(req.maxCostRao)}` : ''})`,
    );
    const submit = (signer: KeySigner) =>
      req.mode === 'register-limit' ? this.chain.registerLimit(signer, this.netuid, req.hotkey, req.maxCostRao!) : this.chain.burnedRegister(signer, this.netuid, req.hotkey);
    const outcome =
      req.coldkey.kind === 'signer'
        ? await submit(req.coldkey.signer)
        : await withColdkeySigner(
            {
              wallet: req.coldkey.wallet,
              password: req.coldkey.password,
              ...(this.opts.walletPath ? { walletPath: this.opts.walletPath } : {}),
              ...(this.opts.env ? { env: this.opts.env } : {}),
              ...(this.opts.redactor ? { redactor: this.opts.redactor } : {}),
              ...(this.opts.kdf ? { kdf: this.opts.kdf } : {}),
            },
            async (signer) => {
              if (signer.address !== coldkey)
                throw new AppFailure('wallet-not-found', `The coldkey decrypts to ${signer.address}, not ${coldkey}: fix coldkeypub.txt with \`btcli w regen_coldkeypub\`.`);
              return submit(signer);
            },
          );
    if (!outcome.ok) {
      if (outcome.kind === 'dispatch') await this.refreshContext(ctx);
      const failure = registrationFailure(outcome, ctx);
      this.log.warn(`registration of ${req.hotkey} failed: ${outcome.code}`);
      throw failure;
    }
    // The SDK re-reads is_hotkey_registered after inclusion; the uid is what the user wants to see.
    const after = await this.chain.neuron(this.netuid, req.hotkey).catch(() => null);
    this.log.info(`registered ${req.hotkey} on subnet ${this.netuid}${after?.uid != null ? ` as uid ${after.uid}` : ''} in block ${outcome.blockNumber}`);
    return {
      netuid: this.netuid,
      hotkey: req.hotkey,
      uid: after?.uid ?? null,
      blockHash: outcome.blockHash,
      blockNumber: outcome.blockNumber,
      extrinsicHash: outcome.extrinsicHash,
      quotedCostRao: facts.burnRao.toString(),
    };
  }
}
