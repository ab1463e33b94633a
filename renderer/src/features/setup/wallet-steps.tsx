import { useState } from 'react';
import type { WalletView } from '../../../../shared/api.ts';
import type { Settings } from '../../../../shared/settings.ts';
import { formatTao } from '../../../../shared/wallet.ts';
import { engineApi } from '../../stores/engine-store.ts';

function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async (fn: () => Promise<string | null>) => {
    setBusy(true);
    setError(null);
    try {
      const e = await fn();
      if (e) setError(e);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run };
}

export function HotkeyStep({ wallet, settings }: { wallet: WalletView; settings: Settings }) {
  const { busy, error, run } = useAction();
  const [newWallet, setNewWallet] = useState(settings.wallet.name ?? 'default');
  const [newHotkey, setNewHotkey] = useState('miner');
  const [created, setCreated] = useState<{ ss58Address: string; mnemonic: string } | null>(null);
  const [confirmed, setConfirmed] = useState(false);
  const [secret, setSecret] = useState('');
  const [imported, setImported] = useState<string | null>(null);
  const listing = wallet.listing;
  const choose = (w: string, h: string) => run(async () => {
    const r = await engineApi().invoke('settings.update', { wallet: { name: w, hotkey: h } });
    return r.ok ? null : r.error.message;
  });
  const importKey = () => run(async () => {
    const r = await engineApi().invoke('wallet.importHotkey', { wallet: newWallet, hotkey: newHotkey, secret });
    setSecret('');
    if (!r.ok) return r.error.message;
    setImported(r.value.ss58Address);
    await engineApi().invoke('settings.update', { wallet: { name: newWallet, hotkey: newHotkey } });
    return null;
  });
  const create = () => run(async () => {
    const r = await engineApi().invoke('wallet.createHotkey', { wallet: newWallet, hotkey: newHotkey });
    if (!r.ok) return r.error.message;
    setCreated(r.value);
    setConfirmed(false);
    await engineApi().invoke('settings.update', { wallet: { name: newWallet, hotkey: newHotkey } });
    return null;
  });
  return (
    <div className="stack">
      <p className="muted small">Wallets are read from {listing?.walletPath ?? '~/.bittensor/wallets'} (btcli's folder). Secrets stay in the engine; only addresses are shown.</p>
      {listing && listing.wallets.length > 0 ? (
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
            {listing.wallets.flatMap((w) =>
              w.hotkeys.map((h) => {
                const selected = settings.wallet.name === w.name && settings.wallet.hotkey === h.name;
                return (
                  <tr key={`${w.name}/${h.name}`}>
                    <td>{w.name}</td>
                    <td>{h.name}</td>
                    <td className="mono small">{h.ss58Address ?? '—'}</td>
                    <td>
                      {selected ? <span className="badge ok">selected</span> : <button className="btn" disabled={busy} onClick={() => void choose(w.name, h.name)}>Use</button>}
                    </td>
                  </tr>
                );
              }),
            )}
          </tbody>
        </table>
      ) : (
        <p>No btcli wallet found. Create a hotkey below, or import yours with btcli first.</p>
      )}
      <div className="row">
        <input type="text" aria-label="Wallet name" value={newWallet} onChange={(e) => setNewWallet(e.target.value)} />
        <input type="text" aria-label="Hotkey name" value={newHotkey} onChange={(e) => setNewHotkey(e.target.value)} />
        <button className="btn" disabled={busy} onClick={() => void create()}>
          Create a new hotkey
        </button>
      </div>
      <div className="row">
        <input
          type="password"
          aria-label="Mnemonic or seed to import"
          placeholder="Or import: the hotkey's mnemonic words, or its 0x seed"
          value={secret}
          onChange={(e) => setSecret(e.target.value)}
          style={{ flex: 1 }}
          autoComplete="off"
        />
        <button className="btn" disabled={busy || secret.trim().length < 16} onClick={() => void importKey()}>
          Import into {newWallet}/{newHotkey}
        </button>
      </div>
      {imported && <p className="small">Imported: <span className="mono">{imported}</span></p>}
      {created && !confirmed && (
        <div className="card stack" role="alert" style={{ borderColor: 'var(--warn)' }}>
          <b>Write these words down now. They are shown once and are the only way to recover this hotkey.</b>
          <div className="cmd" data-testid="mnemonic">{created.mnemonic}</div>
          <div className="mono small">{created.ss58Address}</div>
          <label className="toggle">
            <input type="checkbox" onChange={(e) => e.target.checked && setConfirmed(true)} /> I wrote the words down
          </label>
        </div>
      )}
      {error && <div className="error-box">{error}</div>}
    </div>
  );
}

export function MinerKeyStep({ wallet }: { wallet: WalletView }) {
  const { busy, error, run } = useAction();
  const [key, setKey] = useState('');
  const save = () => run(async () => {
    const r = await engineApi().invoke('wallet.setMinerKey', { key });
    if (r.ok) setKey('');
    return r.ok ? null : r.error.message;
  });
  const k = wallet.minerKey;
  return (
    <div className="stack">
      <p className="muted small">The miner key is issued at provider.engy.ai for your registered hotkey. It is stored {k.storage === 'os-keyring' ? 'in the OS keyring' : 'in a file only you can read'} and never shown again in full.</p>
      {k.present && (
        <p>
          Current key: <span className="mono">{k.masked}</span>
        </p>
      )}
      {k.warning && <p className="small" style={{ color: 'var(--warn)' }}>{k.warning}</p>}
      <div className="row">
        <input type="password" aria-label="Miner key" placeholder={k.present ? 'Paste a new key to replace it' : 'Paste your miner key'} value={key} onChange={(e) => setKey(e.target.value)} style={{ flex: 1 }} autoComplete="off" />
        <button className="btn primary" disabled={busy || key.trim().length < 8} onClick={() => void save()}>
          Save key
        </button>
      </div>
      {error && <div className="error-box">{error}</div>}
    </div>
  );
}

export function RegistrationStep({ wallet }: { wallet: WalletView }) {
  const { busy, error, run } = useAction();
  const [cap, setCap] = useState('');
  const [password, setPassword] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const reg = wallet.registration;
  const check = () => run(async () => {
    const r = await engineApi().invoke('wallet.registration', null);
    return r.ok ? null : r.error.message;
  });
  const registerWithBrowser = () => run(async () => {
    const r = await engineApi().invoke('wallet.registerWithBrowser', { mode: 'register-limit', limitTao: cap });
    if (!r.ok) return r.error.message;
    setDone(`Registered as uid ${r.value.uid ?? '?'} in block ${r.value.blockNumber}.`);
    return null;
  });
  const register = () => run(async () => {
    const r = await engineApi().invoke('wallet.register', { mode: 'register-limit', limitTao: cap, password });
    setPassword('');
    if (!r.ok) return r.error.message;
    setDone(`Registered as uid ${r.value.uid ?? '?'} in block ${r.value.blockNumber}.`);
    return null;
  });
  return (
    <div className="stack">
      <div className="row">
        <button className="btn" disabled={busy} onClick={() => void check()}>
          {busy ? 'Asking the chain…' : 'Check registration'}
        </button>
        {reg && (
          <span data-testid="registration-status">
            {reg.registration.registered ? (
              <span className="badge ok">registered, uid {reg.registration.uid}</span>
            ) : (
              <span className="badge warn">not registered on subnet {reg.registration.netuid}</span>
            )}{' '}
            {reg.registration.validatorPermit ? <span className="badge info">validator permit</span> : null}{' '}
            {reg.registration.immunityBlocksLeft !== undefined && reg.registration.registered ? (
              <span className={`badge ${reg.registration.immunityBlocksLeft > 0 ? 'info' : 'neutral'}`}>
                {reg.registration.immunityBlocksLeft > 0 ? `immune for ${reg.registration.immunityBlocksLeft} more blocks (~${Math.round((reg.registration.immunityBlocksLeft * 12) / 3600)} h)` : 'immunity over: a weak score can be pruned'}
              </span>
            ) : null}
          </span>
        )}
      </div>
      {reg && !reg.registration.registered && (
        <div className="card stack">
          <dl className="kv">
            <dt>Cost now</dt>
            <dd>{formatTao(reg.quote.costRao)} (moves every block)</dd>
            <dt>Coldkey balance</dt>
            <dd>{reg.quote.coldkeyFreeRao === null ? 'unknown' : formatTao(reg.quote.coldkeyFreeRao)}</dd>
          </dl>
          <div className="row">
            <input type="text" aria-label="Price cap in TAO" placeholder="Most you agree to pay (TAO)" value={cap} onChange={(e) => setCap(e.target.value)} />
            <input type="password" aria-label="Coldkey password" placeholder="Coldkey password" value={password} onChange={(e) => setPassword(e.target.value)} autoComplete="off" />
            <button className="btn primary" disabled={busy || !cap || !password} onClick={() => void register()}>
              Register (register_limit)
            </button>
          </div>
          <div className="row">
            <button className="btn" disabled={busy || !cap} onClick={() => void registerWithBrowser()}>
              Sign with a browser wallet instead
            </button>
            {wallet.signingUrl && (
              <a className="btn primary" href={wallet.signingUrl} target="_blank" rel="noreferrer">
                Open the signing page
              </a>
            )}
          </div>
          <p className="muted small">
            Two ways to sign: the password unlocks your btcli coldkey inside the engine for this one registration and is then dropped (never stored or logged); or a browser wallet extension (polkadot.js, Talisman, SubWallet) holding this coldkey signs on a one-shot page the engine serves on this machine. The desktop app opens that page in your browser; a remote browser needs the engine's machine to be this one.
          </p>
        </div>
      )}
      {done && <div className="card">{done}</div>}
      {(error ?? wallet.registrationError) && <div className="error-box">{error ?? wallet.registrationError}</div>}
    </div>
  );
}
