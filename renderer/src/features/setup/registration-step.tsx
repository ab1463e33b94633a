import { lazy, Suspense, useEffect, useState } from 'react';
import type { WalletView } from '../../../../shared/api.ts';
import type { Settings } from '../../../../shared/settings.ts';
import { formatTao } from '../../../../shared/wallet.ts';
import { engineApi } from '../../stores/engine-store.ts';
import { currentRegistration, selectedWallet } from './wallet-steps.tsx';
import { ActionError, useAction } from '../common/use-action.tsx';
import { SecretInput } from '../common/secret-input.tsx';
import { CopyButton } from '../common/copy-button.tsx';

/** Signing in place loads with its wallet library, only while a browser-wallet request is open. */
const BrowserWalletInPlace = lazy(() => import('./browser-wallet-in-place.tsx').then((m) => ({ default: m.BrowserWalletInPlace })));

/** The burn moves every block: while the step is open the quote is refreshed this often. */
const LIVE_QUOTE_MS = 24_000;

/** A price cap 5 % above the quote, rounded up to 0.0001 τ, so a block's drift does not refuse the registration. */
function suggestedCap(costRao: string): string {
  const step = 100_000n;
  const rao = (((BigInt(costRao) * 105n) / 100n + step - 1n) / step) * step;
  return formatTao(rao).replace(' τ', '');
}

export function RegistrationStep({ wallet, settings }: { wallet: WalletView; settings: Settings }) {
  const { busy, error, run } = useAction();
  // The background quote: a refusal (chain unreachable, no wallet) is shown, not lost.
  const { invoke: askQuote, error: quoteError } = useAction();
  const [cap, setCap] = useState('');
  const [password, setPassword] = useState('');
  const [browserAccount, setBrowserAccount] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const reg = currentRegistration(wallet, settings);
  const cold = selectedWallet(wallet, settings);
  const hotkeyChosen = Boolean(settings.wallet.name && settings.wallet.hotkey);
  const hasColdkeyFile = cold !== null && cold.coldkeyEncryption !== 'missing';
  // The page checks on every hotkey change; while this step is open the quote is kept live (the cost moves),
  // and a coldkey added meanwhile is asked about at once.
  useEffect(() => {
    if (!hotkeyChosen) return;
    const ask = () => void askQuote('wallet.registration', null);
    const t = setInterval(ask, LIVE_QUOTE_MS);
    return () => clearInterval(t);
  }, [hotkeyChosen, askQuote]);
  const coldAddress = cold?.coldkeyAddress ?? null;
  useEffect(() => {
    if (hotkeyChosen && coldAddress) void askQuote('wallet.registration', null);
  }, [hotkeyChosen, coldAddress, askQuote]);
  useEffect(() => {
    if (reg && !cap) setCap(suggestedCap(reg.quote.costRao));
  }, [reg, cap]);
  const finish = (r: { uid: number | null; blockNumber: number }) => setDone(`Registered as uid ${r.uid ?? '?'} in block ${r.blockNumber}.`);
  const registerWithBrowser = () =>
    run(async () => {
      const account = browserAccount.trim();
      const r = await engineApi().invoke('wallet.registerWithBrowser', { mode: 'register-limit', limitTao: cap, ...(account ? { coldkey: account } : {}) });
      if (!r.ok) return r.error.message;
      finish(r.value);
      return null;
    });
  const register = () =>
    run(async () => {
      const r = await engineApi().invoke('wallet.register', { mode: 'register-limit', limitTao: cap, password });
      setPassword('');
      if (!r.ok) return r.error.message;
      finish(r.value);
      return null;
    });
  const q = reg?.quote;
  const short = q && q.coldkeyFreeRao !== null && BigInt(q.coldkeyFreeRao) < BigInt(q.costRao);
  if (!hotkeyChosen) return <p>Choose or create a hotkey first: registration puts that hotkey on subnet {settings.validating.netuid}.</p>;
  return (
    <div className="stack">
      {reg?.registration.registered ? (
        <div className="card" data-testid="registration-status">
          <span className="badge ok">registered, uid {reg.registration.uid}</span> {reg.registration.validatorPermit ? <span className="badge info">validator permit</span> : null}{' '}
          {reg.registration.immunityBlocksLeft !== undefined ? (
            <span className={`badge ${reg.registration.immunityBlocksLeft > 0 ? 'info' : 'neutral'}`}>
              {reg.registration.immunityBlocksLeft > 0
                ? `immune for ${reg.registration.immunityBlocksLeft} more blocks (~${Math.round((reg.registration.immunityBlocksLeft * 12) / 3600)} h)`
                : 'immunity over: a weak score can be pruned'}
            </span>
          ) : null}
        </div>
      ) : (
        <div className="card stack" data-testid="registration-needs">
          <div className="spread">
            <b>What registering needs</b>
            <button
              className="btn"
              disabled={busy}
              onClick={() =>
                void run(async () => {
                  const r = await engineApi().invoke('wallet.registration', null);
                  return r.ok ? null : r.error.message;
                })
              }
            >
              Check again
            </button>
          </div>
          <p className="small">A coldkey that signs and pays the registration (burned, not staked), holding at least the current cost. The hotkey needs no balance.</p>
          <dl className="kv">
            <dt>Cost now</dt>
            <dd data-testid="registration-cost">{q ? `${formatTao(q.costRao)} (block ${q.block}; moves every block, refreshed while this step is open)` : 'asking the chain…'}</dd>
            <dt>Coldkey</dt>
            <dd className="mono small">
              <span data-testid="registration-coldkey">
                {q?.coldkey ?? cold?.coldkeyAddress ?? 'none yet: add it in the Coldkey step, or sign in a browser wallet below and pick the account there'}
              </span>{' '}
              {(q?.coldkey ?? cold?.coldkeyAddress) && <CopyButton text={(q?.coldkey ?? cold?.coldkeyAddress)!} what="the coldkey address (send the registration cost here)" />}
            </dd>
            <dt>Its balance</dt>
            <dd>
              {q?.coldkeyFreeRao == null ? 'unknown' : formatTao(q.coldkeyFreeRao)}{' '}
              {q?.canAfford === true ? (
                <span className="badge ok">enough</span>
              ) : short ? (
                <span className="badge bad">not enough: send at least {formatTao((BigInt(q.costRao) - BigInt(q.coldkeyFreeRao!)).toString())} more to this coldkey</span>
              ) : null}
            </dd>
          </dl>
          <div className="row">
            <label className="small">
              Most you agree to pay (τ) <input type="text" aria-label="Price cap in TAO" value={cap} onChange={(e) => setCap(e.target.value)} style={{ width: 120 }} />
            </label>
          </div>
          {hasColdkeyFile && (
            <div className="row">
              <SecretInput label="Coldkey password" value={password} onChange={setPassword} />
              <button
                className="btn primary"
                disabled={busy || !cap || !password || Boolean(short)}
                title={short ? 'The coldkey holds less than the cost: send TAO to it first, then Check again.' : undefined}
                onClick={() => void register()}
              >
                {busy ? 'Unlocking and sending…' : 'Register with this coldkey'}
              </button>
            </div>
          )}
          <div className="row">
            <input
              type="text"
              aria-label="Browser-wallet account"
              placeholder={cold?.coldkeyAddress ? 'Optional: preselect another account (default: this coldkey)' : 'Optional: preselect an account (5…); you pick it on the page'}
              value={browserAccount}
              onChange={(e) => setBrowserAccount(e.target.value)}
              style={{ flex: 1, minWidth: 240 }}
            />
            <button
              className={`btn ${hasColdkeyFile ? '' : 'primary'}`}
              disabled={busy || !cap}
              title={!cap ? 'Set the most you agree to pay first.' : undefined}
              onClick={() => void registerWithBrowser()}
            >
              Sign in a browser wallet
            </button>
            {wallet.signingUrl && (
              <a className="btn primary" href={wallet.signingUrl} target="_blank" rel="noreferrer">
                Open the signing page
              </a>
            )}
          </div>
          {wallet.signing && (
            <Suspense fallback={<p className="muted small">Looking for a wallet extension in this browser…</p>}>
              <BrowserWalletInPlace signing={wallet.signing} />
            </Suspense>
          )}
          <p className="muted small">
            With a coldkey file, its password unlocks it inside the engine for this one registration and is then dropped (never stored or logged). With a browser wallet (polkadot.js, Talisman,
            SubWallet), no file is needed: the engine serves a one-shot page on its machine that lists the extension's accounts with their balance against the cost; you pick the one that pays and the
            extension signs. When this panel is open in a browser with the extension (the headless UI over a tunnel), you can sign right here instead.
          </p>
        </div>
      )}
      {done && <div className="card">{done}</div>}
      <ActionError error={error ?? quoteError ?? wallet.registrationError} />
    </div>
  );
}
