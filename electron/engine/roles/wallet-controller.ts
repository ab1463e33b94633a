// The wallet as the UI sees it: btcli listing, the miner key status, registration on netuid 53.
// Secrets stay here: the snapshot carries addresses and masked keys only.
import type { InvokeRequest, WalletView } from '../../../shared/api.ts';
import { AppFailure } from '../../../shared/errors.ts';
import type { CreatedColdkeyView, FaucetView, MinerKeyStatus, MinerKeyVerification, RegistrationStatusSnapshot, RegistrationSuccess, WalletListing } from '../../../shared/wallet.ts';
import { formatTao, parseTao } from '../../../shared/wallet.ts';
import type { ChainPort, DevFaucetOffer } from '../chain/ports.ts';
import { Emitter } from '../lib/emitter.ts';
import { polkadot } from '../lib/polkadot.ts';
import type { LogHub } from '../lib/logger.ts';
import type { SettingsStore } from '../settings/settings-store.ts';
import { loadHotkeyAddress } from '../wallet/hotkey-address.ts';
import type { MinerKeyStore } from '../wallet/miner-key-store.ts';
import type { RegistrationService } from '../wallet/registration-service.ts';
import { listWallets } from '../wallet/wallet-scan.ts';
import { resolveWalletPath } from '../wallet/wallet-location.ts';
// Types only: the page's module itself is imported on first use (registerWithBrowser).
import type { SigningPage } from '../wallet/browser-signing-session.ts';
import type { KdfLimits } from '../wallet/nacl-keyfile.ts';
import { checkMinerKey, type MinerKeyCheckOptions } from '../wallet/miner-key-check.ts';
import { describeChainError, describeNetworkError } from '../lib/network-words.ts';
import { PROVIDER_HOST } from '../../../shared/network.ts';

// Key creation, signing and registration need polkadot-js (~150 MB resident once loaded): they are
// imported on first use, so an engine that only lists wallets and shows the miner key never loads them.
const hotkeyCreate = () => import('../wallet/hotkey-create.ts');
const coldkeyCreate = () => import('../wallet/coldkey-create.ts');

export interface WalletControllerDeps {
  settings: SettingsStore;
  minerKeys: MinerKeyStore;
  logs: LogHub;
  openChain: (url: string) => Promise<ChainPort>;
  /** Electron opens the signing page in the user's browser; headless, the page shows the link. */
  openExternal?: (url: string) => void;
  /** What a key-check hello carries besides the key: gateway, model, hardware (never the key itself). */
  helloContext?: () => Promise<Omit<MinerKeyCheckOptions, 'key'>>;
  /** Tests only: a cheap KDF for coldkeys they create. Real files always use btwallet's limits. */
  kdf?: KdfLimits;
}

function faucetView(offer: DevFaucetOffer, coldkey: string | null, free: bigint | null, lastCreditedTao: string | null): FaucetView {
  return {
    label: offer.label,
    dripTao: formatTao(offer.dripRao),
    burnTao: formatTao(offer.burnRao),
    feeTao: formatTao(offer.feeRao),
    coldkey,
    balanceTao: free === null ? null : formatTao(free),
    enough: free === null ? null : free >= offer.dripRao,
    lastCreditedTao,
    at: Date.now(),
  };
}

export class WalletController {
  private listing: WalletListing | null = null;
  private registration: RegistrationStatusSnapshot | null = null;
  private registrationError: string | null = null;
  private signingUrl: string | null = null;
  private signingPage: SigningPage | null = null;
  private minerKeyCheck: MinerKeyVerification | null = null;
  private keyCheckRun = 0;
  private faucet: FaucetView | null = null;
  private readonly changes = new Emitter<void>();
  readonly onDidChange = this.changes.event;
  private readonly d: WalletControllerDeps;

  constructor(d: WalletControllerDeps) {
    this.d = d;
    d.minerKeys.onDidChange(() => this.changes.fire());
    // Another hotkey selected: the last verdict no longer applies, and the snapshot says so at once.
    let selection = this.selection();
    d.settings.onDidChange(() => {
      if (this.selection() === selection) return;
      selection = this.selection();
      this.changes.fire();
    });
  }

  /** "wallet/hotkey" as selected in settings, or null. */
  private selection(): string | null {
    const w = this.d.settings.get().wallet;
    return w.name && w.hotkey ? `${w.name}/${w.hotkey}` : null;
  }

  private walletPath(): string {
    return resolveWalletPath(this.d.settings.get().wallet.path ?? undefined);
  }

  snapshot(): WalletView {
    return {
      listing: this.listing,
      minerKey: this.d.minerKeys.status(),
      registration: this.registration,
      registrationError: this.registrationError,
      signingUrl: this.signingUrl,
      signing: this.signingPage?.view() ?? null,
      minerKeyCheck: this.currentKeyCheck(),
      faucet: this.faucet,
    };
  }

  /** A verdict about another key than the one stored now, or made while another hotkey was selected, is not shown. */
  private currentKeyCheck(): MinerKeyVerification | null {
    const c = this.minerKeyCheck;
    return c && c.masked === this.d.minerKeys.status().masked && (c.hotkey ?? null) === this.selection() ? c : null;
  }

  list(): WalletListing {
    this.listing = listWallets(this.walletPath());
    this.changes.fire();
    return this.listing;
  }

  async createHotkey(wallet: string, hotkey: string): Promise<{ ss58Address: string; mnemonic: string }> {
    const { createHotkey } = await hotkeyCreate();
    const created = await createHotkey({ walletPath: this.walletPath(), wallet, hotkey, source: { kind: 'generate' }, redactor: this.d.logs.redactor });
    this.d.logs.logger('wallet').info(`created hotkey ${wallet}/${hotkey} (${created.ss58Address})`);
    this.list();
    if (!created.mnemonic) throw new AppFailure('internal', 'The hotkey was created but no mnemonic came back: re-create it.');
    return { ss58Address: created.ss58Address, mnemonic: created.mnemonic };
  }

  /** btcli-compatible files from an existing mnemonic or 0x seed; never overwrites a key file. */
  async importHotkey(wallet: string, hotkey: string, secret: string): Promise<{ ss58Address: string }> {
    const text = secret.trim();
    this.d.logs.redactor.register(text);
    const source = /^0x[0-9a-fA-F]{64}$/.test(text) ? { kind: 'seed' as const, seed: text } : { kind: 'mnemonic' as const, mnemonic: text };
    const { createHotkey } = await hotkeyCreate();
    const created = await createHotkey({ walletPath: this.walletPath(), wallet, hotkey, source, redactor: this.d.logs.redactor });
    this.d.logs.logger('wallet').info(`imported hotkey ${wallet}/${hotkey} (${created.ss58Address})`);
    this.list();
    return { ss58Address: created.ss58Address };
  }

  /** A new coldkey: 12 fresh words, sealed with the password in btcli's $NACL format, coldkeypub.txt beside it. */
  async createColdkey(wallet: string, password: string): Promise<CreatedColdkeyView> {
    const { createColdkey } = await coldkeyCreate();
    const created = await createColdkey({ walletPath: this.walletPath(), wallet, source: { kind: 'generate' }, password, redactor: this.d.logs.redactor, ...(this.d.kdf ? { kdf: this.d.kdf } : {}) });
    this.d.logs.logger('wallet').info(`created coldkey for wallet ${wallet} (${created.ss58Address})`);
    this.list();
    if (!created.mnemonic) throw new AppFailure('internal', 'The coldkey was created but no words came back: keep the file, and back it up with `btcli w regen_coldkey` later.');
    return { ss58Address: created.ss58Address, mnemonic: created.mnemonic };
  }

  /** An existing coldkey from its words or 0x seed, re-encrypted with the password; never overwrites. */
  async importColdkey(wallet: string, secret: string, password: string): Promise<CreatedColdkeyView> {
    const text = secret.trim();
    this.d.logs.redactor.register(text);
    const [{ createColdkey }, { sourceFromSecret }] = await Promise.all([coldkeyCreate(), import('../wallet/key-source.ts')]);
    const created = await createColdkey({
      walletPath: this.walletPath(),
      wallet,
      source: sourceFromSecret(text),
      password,
      redactor: this.d.logs.redactor,
      ...(this.d.kdf ? { kdf: this.d.kdf } : {}),
    });
    this.d.logs.logger('wallet').info(`imported coldkey for wallet ${wallet} (${created.ss58Address})`);
    this.list();
    return { ss58Address: created.ss58Address };
  }

  /** Only coldkeypub.txt, for a coldkey kept in a browser wallet: the panel then knows its address and balance. */
  async setColdkeyAddress(wallet: string, address: string): Promise<CreatedColdkeyView> {
    const { writeColdkeyPub } = await coldkeyCreate();
    const r = writeColdkeyPub({ walletPath: this.walletPath(), wallet, address });
    this.d.logs.logger('wallet').info(`wrote coldkeypub.txt for wallet ${wallet} (${r.ss58Address})`);
    this.list();
    return r;
  }

  /** Stores the key, then asks the gateway about it once (admit, or the gateway's deny reason). */
  async setMinerKey(key: string): Promise<MinerKeyStatus> {
    const status = this.d.minerKeys.set(key);
    void this.verifyMinerKey().catch(() => undefined);
    return status;
  }

  async verifyMinerKey(): Promise<MinerKeyVerification> {
    const status = this.d.minerKeys.status();
    const key = status.present ? this.d.minerKeys.get() : null;
    if (!key) throw new AppFailure('miner-key-missing', `No miner key is stored yet: paste the key issued at ${PROVIDER_HOST} for your hotkey.`);
    if (!this.d.helloContext) throw new AppFailure('unavailable', 'This engine cannot reach a gateway to check keys.');
    const run = ++this.keyCheckRun;
    const hotkey = this.selection();
    this.minerKeyCheck = { state: 'checking', reason: null, masked: status.masked, hotkey, at: Date.now() };
    this.changes.fire();
    let verdict: Pick<MinerKeyVerification, 'state' | 'reason'>;
    try {
      verdict = await checkMinerKey({ ...(await this.d.helloContext()), key });
    } catch (e) {
      verdict = { state: 'unreachable', reason: `The key could not be checked: ${describeNetworkError(e)}. Try again in a minute.` };
    }
    const result: MinerKeyVerification = { ...verdict, masked: status.masked, hotkey, at: Date.now() };
    // A newer check (a key replaced meanwhile) wins.
    if (run === this.keyCheckRun) {
      this.minerKeyCheck = result;
      this.d.logs.logger('wallet').info(`miner key ${status.masked ?? ''}: ${result.state}${result.reason ? ` (${result.reason})` : ''}`);
      this.changes.fire();
    }
    return result;
  }

  /** The chosen wallet's coldkey address, or null (no wallet chosen, or it has no coldkey yet). */
  private async chosenColdkey(): Promise<string | null> {
    const name = this.d.settings.get().wallet.name;
    if (!name) return null;
    // Loaded when asked, like the other wallet modules: an idle engine stays small.
    const { readColdkeyInfo } = await import('../wallet/coldkey.ts');
    try {
      return readColdkeyInfo({ walletPath: this.walletPath(), wallet: name }).address;
    } catch {
      return null;
    }
  }

  /**
   * Whether the chain offers the simulated network's faucet, and the chosen coldkey's balance. Only asked on the
   * simulated network: on mainnet the answer is null without dialing anything, so no faucet is ever offered there.
   */
  async refreshFaucet(): Promise<FaucetView | null> {
    const s = this.d.settings.get();
    if (s.network !== 'simulated') {
      this.faucet = null;
      this.changes.fire();
      return null;
    }
    const chain = await this.openChainOrSay(s.validating.chainUrl);
    try {
      const offer = chain.devFaucet ? await chain.devFaucet() : null;
      if (!offer) {
        this.faucet = null;
        return null;
      }
      const coldkey = await this.chosenColdkey();
      const free = coldkey ? await chain.freeBalance(coldkey) : null;
      const kept = this.faucet && this.faucet.coldkey === coldkey ? this.faucet.lastCreditedTao : null;
      this.faucet = faucetView(offer, coldkey, free, kept);
      return this.faucet;
    } finally {
      this.changes.fire();
      await chain.close();
    }
  }

  /** One drip to the chosen coldkey: enough for registration's burn plus fees (test τ of the simulated network). */
  async fundFromFaucet(): Promise<FaucetView> {
    const s = this.d.settings.get();
    if (s.network !== 'simulated')
      throw new AppFailure('simulated-only', 'A faucet exists only on the simulated network. On the real network, buy τ on an exchange and send it to your coldkey address.');
    const coldkey = await this.chosenColdkey();
    if (!coldkey) throw new AppFailure('wallet-not-found', 'Create or import a coldkey first (Setup > Coldkey): the faucet pays into it.');
    const chain = await this.openChainOrSay(s.validating.chainUrl);
    try {
      const offer = chain.devFaucet ? await chain.devFaucet() : null;
      if (!offer || !chain.devFaucetDrip) throw new AppFailure('unavailable', "This chain offers no faucet. Check Settings > Network: the simulated network's chain has one.");
      const drip = await chain.devFaucetDrip(coldkey);
      this.d.logs.logger('wallet').info(`simulated faucet: ${formatTao(drip.creditedRao)} to coldkey ${coldkey} (test τ)`);
      // The faucet's own answer: a balance read now could still be the block before the credit.
      this.faucet = faucetView(offer, coldkey, drip.freeRao, formatTao(drip.creditedRao));
      return this.faucet;
    } finally {
      this.changes.fire();
      await chain.close();
    }
  }

  private async openChainOrSay(url: string): Promise<ChainPort> {
    try {
      return await this.d.openChain(url);
    } catch (e) {
      throw new AppFailure(
        'chain-unreachable',
        `Cannot reach the chain at ${url}: ${describeChainError(e)}. Check the internet connection, or choose another chain endpoint in Settings, then check again.`,
      );
    }
  }

  private selected(): { wallet: string; hotkey: string; address: string } {
    const w = this.d.settings.get().wallet;
    if (!w.name || !w.hotkey) throw new AppFailure('wallet-not-found', 'Choose a wallet and hotkey first (Setup > Hotkey).');
    const address = loadHotkeyAddress({ walletPath: this.walletPath(), wallet: w.name, hotkey: w.hotkey });
    return { wallet: w.name, hotkey: w.hotkey, address };
  }

  private async withRegistration<T>(fn: (svc: RegistrationService, chain: ChainPort) => Promise<T>): Promise<T> {
    const s = this.d.settings.get();
    const chain = await this.openChainOrSay(s.validating.chainUrl);
    try {
      const { RegistrationService } = await import('../wallet/registration-service.ts');
      return await fn(new RegistrationService({ chain, netuid: s.validating.netuid, walletPath: this.walletPath(), logger: this.d.logs.logger('wallet'), redactor: this.d.logs.redactor }), chain);
    } finally {
      await chain.close();
    }
  }

  async refreshRegistration(): Promise<RegistrationStatusSnapshot> {
    const sel = this.selected();
    try {
      this.registration = await this.withRegistration((svc) => svc.status({ hotkey: sel.address, wallet: sel.wallet }));
      this.registrationError = null;
      return this.registration;
    } catch (e) {
      this.registrationError = (e as Error).message;
      throw e;
    } finally {
      this.changes.fire();
    }
  }

  /**
   * Registration signed by the coldkey held in a browser wallet extension, through a one-shot loopback
   * page where the user picks the paying account among the extension's (no coldkey file needed). A
   * pasted address, else the wallet's coldkeypub.txt, is only the preselection.
   */
  async registerWithBrowser(mode: 'register-limit' | 'burned-register', limitTao: string | null, coldkeyAddress?: string): Promise<RegistrationSuccess> {
    const sel = this.selected();
    if (mode === 'register-limit' && !limitTao) throw new AppFailure('bad-request', 'Set the most you agree to pay (the price cap) before registering.');
    const [{ publicKeyFromAddress }, { readColdkeyInfo }, { openSigningPage }, { signingPageColdkeySigner }] = await Promise.all([
      coldkeyCreate(),
      import('../wallet/coldkey.ts'),
      import('../wallet/browser-signing-session.ts'),
      import('../wallet/browser-signer.ts'),
    ]);
    const { encodeAddress } = polkadot('@polkadot/util-crypto');
    let preselect: string | null = coldkeyAddress ? encodeAddress(publicKeyFromAddress(coldkeyAddress), 42) : null;
    if (!preselect) {
      try {
        preselect = readColdkeyInfo({ walletPath: this.walletPath(), wallet: sel.wallet }).address;
      } catch {
        preselect = null; // no coldkey in this wallet: the page lists the extension's accounts without one
      }
    }
    const netuid = this.d.settings.get().validating.netuid;
    try {
      const result = await this.withRegistration(async (svc, chain) => {
        const costRao = await chain.subnetFacts(netuid).then(
          (f) => f.burnRao,
          () => null,
        );
        const page = await openSigningPage({
          description: `Register hotkey ${sel.address} on subnet ${netuid}${limitTao ? ` for at most ${limitTao} τ` : ''}`,
          ...(preselect ? { preselect } : {}),
          ...(costRao !== null ? { costTao: formatTao(costRao) } : {}),
          fundsOf: async (address) => {
            const free = await chain.freeBalance(address);
            return { balanceTao: formatTao(free), enough: costRao === null ? null : free >= costRao };
          },
          onChange: () => this.changes.fire(),
        });
        this.signingUrl = page.url;
        this.signingPage = page;
        this.changes.fire();
        this.d.openExternal?.(page.url);
        try {
          const cold = await page.account;
          const signer = signingPageColdkeySigner(page, cold);
          return await svc.register({ hotkey: sel.address, coldkey: { kind: 'signer', signer }, mode, ...(limitTao ? { maxCostRao: parseTao(limitTao) } : {}) });
        } catch (e) {
          // Refused before signing (too little TAO, price above the cap): the page says so too.
          page.fail(e instanceof AppFailure ? e : new AppFailure('internal', (e as Error).message));
          throw e;
        }
      });
      await this.refreshRegistration().catch(() => undefined);
      return result;
    } finally {
      this.signingUrl = null;
      this.signingPage = null;
      this.changes.fire();
    }
  }

  /**
   * The open browser-wallet request answered by the UI itself (a browser with a wallet extension, e.g. the
   * headless UI over a tunnel, where the loopback page is out of reach): same checks as the page's answers.
   */
  answerSigning(req: InvokeRequest<'wallet.answerSigning'>): null {
    const page = this.signingPage;
    if (!page?.view()) throw new AppFailure('bad-request', 'No browser-wallet signing is waiting: start the registration with "Sign in a browser wallet" first.');
    if ('account' in req) page.choose(req.account.trim());
    else if ('signature' in req) page.submit(req.signature);
    else page.decline(req.decline);
    return null;
  }

  async register(mode: 'register-limit' | 'burned-register', limitTao: string | null, password: string): Promise<RegistrationSuccess> {
    const sel = this.selected();
    if (mode === 'register-limit' && !limitTao) throw new AppFailure('bad-request', 'Set the most you agree to pay (the price cap) before registering.');
    const result = await this.withRegistration((svc) =>
      svc.register({ hotkey: sel.address, coldkey: { kind: 'password', wallet: sel.wallet, password }, mode, ...(limitTao ? { maxCostRao: parseTao(limitTao) } : {}) }),
    );
    await this.refreshRegistration().catch(() => undefined);
    return result;
  }
}
