// The wallet: hotkeys, coldkeys, the miner key and registration, with its topic and handlers. The miner
// key store is the one the mining module reads the key from.
import type { ChainPort } from '../engine/chain/ports.ts';
import type { HardwareService } from '../engine/hardware/hardware-service.ts';
import { helloHw } from '../engine/miner/hello-hw.ts';
import type { CheckpointFollower } from '../engine/roles/checkpoint-follower.ts';
import { WalletController } from '../engine/roles/wallet-controller.ts';
import type { SettingsStore } from '../engine/settings/settings-store.ts';
import { MinerKeyStore, type SecretBox } from '../engine/wallet/miner-key-store.ts';
import type { ModelPlace } from './model-place.ts';
import type { Wiring } from './wiring.ts';

export interface WalletDeps {
  settings: SettingsStore;
  hardware: HardwareService;
  checkpoint: CheckpointFollower;
  place: ModelPlace;
  openChain: (url: string) => Promise<ChainPort>;
  secretBox: SecretBox | null;
  openExternal?: (url: string) => void;
}

export function wireWallet(w: Wiring, d: WalletDeps): { wallet: WalletController; minerKeys: MinerKeyStore } {
  w.module('wallet');
  const { paths, logs, versions } = w.rt;
  const minerKeys = new MinerKeyStore({ secretsDir: paths.secrets, secretBox: d.secretBox, redactor: logs.redactor, logger: logs.logger('keys') });
  // A key-check hello says what a real one would: model, checkpoint identity (when known), hardware.
  const helloContext = async () => {
    const report = await d.hardware.get();
    return { gatewayUrl: d.settings.get().mining.gatewayUrl, model: d.place.spec.id, modelRoot: d.checkpoint.snapshot()?.identity ?? d.place.spec.modelRoot, hw: helloHw(report), versions };
  };
  const wallet = new WalletController({ settings: d.settings, minerKeys, logs, openChain: d.openChain, helloContext, ...(d.openExternal ? { openExternal: d.openExternal } : {}) });
  w.bind(
    'wallet',
    () => wallet.snapshot(),
    (l) => wallet.onDidChange(l),
  );
  w.handle({
    'wallet.list': () => wallet.list(),
    'wallet.createHotkey': (req) => wallet.createHotkey(req.wallet, req.hotkey),
    'wallet.importHotkey': (req) => wallet.importHotkey(req.wallet, req.hotkey, req.secret),
    'wallet.setMinerKey': (req) => wallet.setMinerKey(req.key),
    'wallet.registration': () => wallet.refreshRegistration(),
    'wallet.register': (req) => wallet.register(req.mode, req.limitTao, req.password),
    'wallet.registerWithBrowser': (req) => wallet.registerWithBrowser(req.mode, req.limitTao, req.coldkey),
    'wallet.answerSigning': (req) => wallet.answerSigning(req),
    'wallet.createColdkey': (req) => wallet.createColdkey(req.wallet, req.password),
    'wallet.importColdkey': (req) => wallet.importColdkey(req.wallet, req.secret, req.password),
    'wallet.setColdkeyAddress': (req) => wallet.setColdkeyAddress(req.wallet, req.address),
    'wallet.verifyMinerKey': () => wallet.verifyMinerKey(),
    'wallet.faucet': () => wallet.refreshFaucet(),
    'wallet.faucetDrip': () => wallet.fundFromFaucet(),
  });
  return { wallet, minerKeys };
}

/** The first listing, once everything is wired (a failure is logged: the Wallet page lists again). */
export function listWallets(w: Wiring, wallet: WalletController): void {
  try {
    wallet.list();
  } catch (e) {
    w.rt.logs.logger('app').warn(`wallets could not be listed: ${(e as Error).message}`);
  }
}
