import { useEffect, useState } from 'react';
import type { WalletView } from '../../../../shared/api.ts';
import type { Settings } from '../../../../shared/settings.ts';
import type { FaucetView, WalletEntry } from '../../../../shared/wallet.ts';
import { engineApi } from '../../stores/engine-store.ts';
import type { SecretWords } from '../common/secret-words-dialog.tsx';
import { ActionError, useAction } from '../common/use-action.tsx';
import { SecretInput } from '../common/secret-input.tsx';
import { PROVIDER_HOST } from '../../../../shared/network.ts';
import { ChoiceGroup, type Choice } from '../common/choice-group.tsx';
import { CopyButton } from '../common/copy-button.tsx';
import { coldkeyWords, hotkeyWords, markConfirmed, markUnconfirmed, unconfirmedWords } from './unconfirmed-words.ts';

/** Hands fresh words to the page's show-once dialog; `after` runs once the user confirmed writing them down. */
export type ShowWords = (secret: SecretWords, after: () => Promise<unknown>) => void;

const selectWallet = (name: string, hotkey: string | null) => engineApi().invoke('settings.update', { wallet: { name, hotkey } });

/** `base`, or `base-2`, `base-3`… : the first name not in `taken`. */
export function freeName(base: string, taken: ReadonlySet<string>): string {
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

const hotkeyNames = (wallet: WalletView, walletName: string) => new Set(wallet.listing?.wallets.find((w) => w.name === walletName)?.hotkeys.map((h) => h.name) ?? []);

export function selectedWallet(wallet: WalletView, settings: Settings): WalletEntry | null {
  return wallet.listing?.wallets.find((w) => w.name === settings.wallet.name) ?? null;
}

type ColdkeyWay = 'create' | 'import' | 'browser';
const WAYS: Choice<ColdkeyWay>[] = [
  { id: 'create', title: 'Create a new coldkey', text: 'Fresh recovery words, encrypted with your password the way btcli does.' },
  { id: 'import', title: 'Import my coldkey', text: 'From its recovery words or 0x seed (btcli regen_coldkey).' },
  { id: 'browser', title: 'It is in a browser wallet', text: 'polkadot.js, Talisman or SubWallet: give its address; it signs in the browser.' },
];

export function ColdkeyStep({ wallet, settings, showWords }: { wallet: WalletView; settings: Settings; showWords: ShowWords }) {
  const { busy, error, run } = useAction();
  const [way, setWay] = useState<ColdkeyWay>('create');
  // Never a pre-filled name that already holds a coldkey: the next free one.
  const [name, setName] = useState(
    () => settings.wallet.name ?? freeName('default', new Set((wallet.listing?.wallets ?? []).filter((w) => w.coldkeyAddress || w.coldkeyEncryption !== 'missing').map((w) => w.name))),
  );
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [secret, setSecret] = useState('');
  const [address, setAddress] = useState('');
  const current = selectedWallet(wallet, settings);
  const withCold = (wallet.listing?.wallets ?? []).filter((w) => w.coldkeyAddress);
  const unconfirmed = unconfirmedWords();
  const taken = wallet.listing?.wallets.find((w) => w.name === name.trim());
  const mismatch = way !== 'browser' && repeat.length > 0 && password !== repeat;
  const create = () =>
    run(async () => {
      const r = await engineApi().invoke('wallet.createColdkey', { wallet: name.trim(), password });
      setPassword('');
      setRepeat('');
      if (!r.ok) return r.error.message;
      const w = name.trim();
      // Unconfirmed until the dialog's "written down": a reload meanwhile leaves the warning, not a plain "Use".
      markUnconfirmed(coldkeyWords(w));
      showWords({ kind: 'coldkey', label: `wallet ${w}`, address: r.value.ss58Address, words: r.value.mnemonic ?? '' }, () => (markConfirmed(coldkeyWords(w)), selectWallet(w, null)));
      return null;
    });
  const importKey = () =>
    run(async () => {
      const r = await engineApi().invoke('wallet.importColdkey', { wallet: name.trim(), secret, password });
      setSecret('');
      setPassword('');
      setRepeat('');
      if (!r.ok) return r.error.message;
      await selectWallet(name.trim(), null);
      return null;
    });
  const saveAddress = () =>
    run(async () => {
      const r = await engineApi().invoke('wallet.setColdkeyAddress', { wallet: name.trim(), address: address.trim() });
      if (!r.ok) return r.error.message;
      setAddress('');
      await selectWallet(name.trim(), null);
      return null;
    });
  return (
    <div className="stack">
      <p className="muted small">
        The coldkey owns your hotkeys and pays the registration. It is stored like btcli stores it ({wallet.listing?.walletPath ?? '~/.bittensor/wallets'}/&lt;wallet&gt;/coldkey, encrypted), or stays
        in your browser wallet.
      </p>
      {current?.coldkeyAddress ? (
        <div className="card small" data-testid="coldkey-current">
          Wallet <b>{current.name}</b>: coldkey <span className="mono">{current.coldkeyAddress}</span> <CopyButton text={current.coldkeyAddress} what={`the coldkey address of ${current.name}`} />{' '}
          <span className="badge neutral">
            {current.coldkeyEncryption === 'missing' ? 'address only (browser wallet)' : current.coldkeyEncryption === 'nacl' ? 'encrypted file' : current.coldkeyEncryption}
          </span>
        </div>
      ) : null}
      {withCold.length > 0 && (
        <div className="row">
          <span className="small muted">Use a wallet on this machine:</span>
          {withCold.map((w) => (
            <button
              key={w.name}
              className="btn"
              disabled={busy || w.name === settings.wallet.name}
              onClick={() => void run(async () => ((await selectWallet(w.name, null)).ok ? null : 'The wallet could not be selected.'))}
            >
              {w.name} ({w.coldkeyAddress!.slice(0, 6)}…){unconfirmed.has(coldkeyWords(w.name)) ? ': words never confirmed written down' : ''}
            </button>
          ))}
        </div>
      )}
      <ChoiceGroup label="Coldkey source" choices={WAYS} picked={way} onPick={setWay} />
      <div className="row">
        <label className="small">
          Wallet name <input type="text" aria-label="Coldkey wallet name" value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        {taken && (taken.coldkeyAddress || taken.coldkeyEncryption !== 'missing') && (
          <span className="small" style={{ color: 'var(--warn)' }}>
            Wallet {taken.name} already has a coldkey: pick another name, or use it above.
          </span>
        )}
      </div>
      {way === 'import' && <SecretInput label="Coldkey recovery words or seed" placeholder="The coldkey's recovery words (12 or 24), or its 0x seed" value={secret} onChange={setSecret} />}
      {way !== 'browser' ? (
        <>
          <div className="row">
            <SecretInput label="New coldkey password" placeholder="Password (8+ characters)" value={password} onChange={setPassword} newPassword />
            <SecretInput label="Repeat the password" value={repeat} onChange={setRepeat} newPassword />
            <button
              className="btn primary"
              disabled={busy || password.length < 8 || password !== repeat || (way === 'import' && secret.trim().length < 16)}
              onClick={() => void (way === 'create' ? create() : importKey())}
            >
              {busy ? 'Encrypting (10 to 60 s, by the machine)…' : way === 'create' ? 'Create coldkey' : 'Import coldkey'}
            </button>
          </div>
          <p className="muted small">
            The password encrypts the file (btcli asks for it to sign); the panel asks for it again only when you register, and never stores it.
            {mismatch ? <span style={{ color: 'var(--warn)' }}> The two passwords differ.</span> : null}
          </p>
        </>
      ) : (
        <div className="row">
          <input
            type="text"
            aria-label="Coldkey address"
            placeholder="Your browser-wallet account address (5…)"
            value={address}
            onChange={(e) => setAddress(e.target.value)}
            style={{ flex: 1, minWidth: 260 }}
          />
          <button className="btn primary" disabled={busy || address.trim().length < 40} onClick={() => void saveAddress()}>
            Use this address
          </button>
        </div>
      )}
      {error && <div className="error-box">{error}</div>}
    </div>
  );
}

export function HotkeyStep({ wallet, settings, showWords }: { wallet: WalletView; settings: Settings; showWords: ShowWords }) {
  const { busy, error, run } = useAction();
  const [newWallet, setNewWallet] = useState(settings.wallet.name ?? 'default');
  const [newHotkey, setNewHotkey] = useState(() => freeName('miner', hotkeyNames(wallet, settings.wallet.name ?? 'default')));
  const [secret, setSecret] = useState('');
  const [imported, setImported] = useState<string | null>(null);
  useEffect(() => {
    if (settings.wallet.name) setNewWallet(settings.wallet.name);
  }, [settings.wallet.name]);
  const listing = wallet.listing;
  const hotTaken = hotkeyNames(wallet, newWallet.trim()).has(newHotkey.trim());
  const choose = (w: string, h: string) =>
    run(async () => {
      const r = await selectWallet(w, h);
      return r.ok ? null : r.error.message;
    });
  const importKey = () =>
    run(async () => {
      const r = await engineApi().invoke('wallet.importHotkey', { wallet: newWallet, hotkey: newHotkey, secret });
      setSecret('');
      if (!r.ok) return r.error.message;
      setImported(r.value.ss58Address);
      await selectWallet(newWallet, newHotkey);
      return null;
    });
  // The hotkey is selected (and the step completes) only after the words were confirmed written down.
  const create = () =>
    run(async () => {
      const r = await engineApi().invoke('wallet.createHotkey', { wallet: newWallet, hotkey: newHotkey });
      if (!r.ok) return r.error.message;
      const [w, h] = [newWallet, newHotkey];
      markUnconfirmed(hotkeyWords(w, h));
      showWords({ kind: 'hotkey', label: `${w}/${h}`, address: r.value.ss58Address, words: r.value.mnemonic }, () => (markConfirmed(hotkeyWords(w, h)), selectWallet(w, h)));
      return null;
    });
  const rows = (listing?.wallets ?? []).flatMap((w) => w.hotkeys.map((h) => ({ w, h })));
  const unconfirmed = unconfirmedWords();
  return (
    <div className="stack">
      <p className="muted small">
        The hotkey is this machine's identity on the subnet. It lives in a btcli wallet under {listing?.walletPath ?? '~/.bittensor/wallets'}; only addresses are shown here.
      </p>
      {rows.length > 0 ? (
        <div className="table-scroll">
          <table>
            <thead>
              <tr>
                <th>Wallet</th>
                <th>Hotkey</th>
                <th>Address</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {rows.map(({ w, h }) => {
                const selected = settings.wallet.name === w.name && settings.wallet.hotkey === h.name;
                const unbacked = unconfirmed.has(hotkeyWords(w.name, h.name));
                return (
                  <tr key={`${w.name}/${h.name}`}>
                    <td>{w.name}</td>
                    <td>
                      {h.name}
                      {unbacked && (
                        <div className="small" style={{ color: 'var(--warn)' }} data-testid="words-unconfirmed">
                          You never confirmed writing its recovery words down; they cannot be shown again.
                        </div>
                      )}
                    </td>
                    <td className="mono small addr">
                      {h.ss58Address ? (
                        <>
                          {h.ss58Address} <CopyButton text={h.ss58Address} what={`the address of ${w.name}/${h.name}`} />
                        </>
                      ) : (
                        '—'
                      )}
                    </td>
                    <td className="nowrap">
                      {selected ? (
                        <span className="badge ok">selected</span>
                      ) : (
                        <button className="btn" disabled={busy} onClick={() => void choose(w.name, h.name)} aria-label={`Use ${w.name}/${h.name}${unbacked ? ' without a backup of its words' : ''}`}>
                          {unbacked ? 'Use without a backup' : 'Use'}
                        </button>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : (
        <p>No hotkey on this machine yet: create one below (or import one you have).</p>
      )}
      <div className="row">
        <label className="small">
          Wallet <input type="text" aria-label="Wallet name" value={newWallet} onChange={(e) => setNewWallet(e.target.value)} />
        </label>
        <label className="small">
          Hotkey <input type="text" aria-label="Hotkey name" value={newHotkey} onChange={(e) => setNewHotkey(e.target.value)} />
        </label>
        <button className="btn primary" disabled={busy || hotTaken} onClick={() => void create()}>
          Create a new hotkey
        </button>
        {hotTaken && (
          <span className="small" style={{ color: 'var(--warn)' }} data-testid="hotkey-name-taken">
            {newWallet.trim()}/{newHotkey.trim()} exists already: pick another hotkey name, or use it in the table above.
          </span>
        )}
      </div>
      <div className="row">
        <SecretInput label="Mnemonic or seed to import" placeholder="Or import: the hotkey's recovery words, or its 0x seed" value={secret} onChange={setSecret} wide />
        <button className="btn" disabled={busy || hotTaken || secret.trim().length < 16} onClick={() => void importKey()}>
          Import into {newWallet}/{newHotkey}
        </button>
      </div>
      {imported && (
        <p className="small">
          Imported: <span className="mono">{imported}</span>
        </p>
      )}
      {error && <div className="error-box">{error}</div>}
    </div>
  );
}

/**
 * The simulated network's faucet (shown only when the engine says its chain has one): test τ for the new
 * coldkey, enough for registration's burn plus fees, in one step that says plainly what it is.
 */
export function FaucetStep({ faucet }: { faucet: FaucetView }) {
  const { busy, error, invoke } = useAction();
  return (
    <div className="stack" data-testid="faucet">
      <p className="small" style={{ margin: 0 }}>
        <span className="badge warn">simulated network</span> {faucet.label}.
      </p>
      <p className="muted small" style={{ margin: 0 }}>
        One drip is {faucet.dripTao}: the registration burn ({faucet.burnTao}) plus {faucet.feeTao} for fees. On the real network you would buy τ on an exchange and send it to this coldkey instead.
      </p>
      {faucet.coldkey ? (
        <dl className="kv">
          <dt>Coldkey</dt>
          <dd className="mono small" style={{ overflowWrap: 'anywhere' }}>
            {faucet.coldkey}
          </dd>
          <dt>Free balance</dt>
          <dd data-testid="faucet-balance">
            {faucet.balanceTao ?? '—'} {faucet.enough ? <span className="badge ok">enough to register</span> : <span className="badge neutral">not enough to register</span>}
          </dd>
          {faucet.lastCreditedTao && (
            <>
              <dt>Last drip</dt>
              <dd>{faucet.lastCreditedTao === '0 τ' ? "nothing: the coldkey already held a drip's worth" : `${faucet.lastCreditedTao} of test τ`}</dd>
            </>
          )}
        </dl>
      ) : (
        <p className="small">Create or import a coldkey first: the faucet pays into it.</p>
      )}
      {faucet.enough ? (
        <p className="small" style={{ margin: 0 }}>
          The coldkey holds enough to register: nothing more to fund.
        </p>
      ) : (
        <div className="row">
          <button className="btn primary" disabled={busy || !faucet.coldkey} onClick={() => void invoke('wallet.faucetDrip', null)}>
            {busy ? 'Asking the faucet…' : `Fund my coldkey with ${faucet.dripTao} of test τ`}
          </button>
        </div>
      )}
      <ActionError error={error} />
    </div>
  );
}

const CHECK_TEXT = { checking: 'Asking the gateway…', admitted: 'The gateway admits this key.', denied: 'The gateway refused this key', unreachable: 'Not checked' } as const;

export function MinerKeyStep({ wallet }: { wallet: WalletView }) {
  const { busy, error, run } = useAction();
  const { invoke: firstCheck, error: firstCheckError } = useAction();
  const [key, setKey] = useState('');
  const k = wallet.minerKey;
  const check = wallet.minerKeyCheck;
  // A stored key nobody asked the gateway about yet is checked once, on its own.
  useEffect(() => {
    if (k.present && !check) void firstCheck('wallet.verifyMinerKey', null);
  }, [k.present, k.masked, check, firstCheck]);
  const save = () =>
    run(async () => {
      const r = await engineApi().invoke('wallet.setMinerKey', { key });
      if (r.ok) setKey('');
      return r.ok ? null : r.error.message;
    });
  const recheck = () =>
    run(async () => {
      const r = await engineApi().invoke('wallet.verifyMinerKey', null);
      return r.ok ? null : r.error.message;
    });
  return (
    <div className="stack">
      <p className="muted small">
        Get the miner key at {PROVIDER_HOST} for your registered hotkey. The panel checks it with the gateway (one hello, as the miner will send), stores it{' '}
        {k.storage === 'os-keyring' ? 'in the OS keyring' : 'in a file only you can read'} and never shows it again in full.
      </p>
      {k.present && (
        <div className="row" data-testid="miner-key-check">
          <span>
            Stored key <span className="mono">{k.masked}</span>:
          </span>
          <span className={`badge ${check?.state === 'admitted' ? 'ok' : check?.state === 'denied' ? 'bad' : check?.state === 'checking' ? 'info' : 'warn'}`}>
            {check ? CHECK_TEXT[check.state] : 'not checked yet'}
          </span>
          {check?.state !== 'checking' && (
            <button className="btn" disabled={busy} onClick={() => void recheck()}>
              Check again
            </button>
          )}
        </div>
      )}
      {check?.reason && (check.state === 'denied' || check.state === 'unreachable') && (
        <div className={check.state === 'denied' ? 'error-box' : 'card small'}>
          {check.state === 'denied' ? `The gateway says: "${check.reason}". Check that you pasted the key issued for this hotkey, or get a new one at ${PROVIDER_HOST}.` : check.reason}
        </div>
      )}
      {k.warning && (
        <p className="small" style={{ color: 'var(--warn)' }}>
          {k.warning}
        </p>
      )}
      <div className="row">
        <SecretInput label="Miner key" placeholder={k.present ? 'Paste a new key to replace it' : 'Paste your miner key'} value={key} onChange={setKey} wide />
        <button className="btn primary" disabled={busy || key.trim().length < 8} onClick={() => void save()}>
          Save and check
        </button>
      </div>
      <ActionError error={error ?? firstCheckError} />
    </div>
  );
}

export function selectedHotkeyAddress(wallet: WalletView, settings: Settings): string | null {
  return selectedWallet(wallet, settings)?.hotkeys.find((h) => h.name === settings.wallet.hotkey)?.ss58Address ?? null;
}

/** The registration snapshot, only when it is about the hotkey selected now. */
export function currentRegistration(wallet: WalletView, settings: Settings): WalletView['registration'] {
  const addr = selectedHotkeyAddress(wallet, settings);
  return wallet.registration && addr && wallet.registration.registration.hotkey === addr ? wallet.registration : null;
}
