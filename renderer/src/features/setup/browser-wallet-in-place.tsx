// "Sign in a browser wallet" without the loopback page: when this UI itself runs in a browser with a wallet
// extension (the headless UI over a tunnel, where the engine's 127.0.0.1 page is out of reach), it answers
// the engine's open signing request in place, through the same extension-dapp module as the signing page.
import { useEffect, useMemo, useRef, useState } from 'react';
import type { SignerPayloadJSON } from '@polkadot/types/types';
import type { BrowserSigningView } from '../../../../shared/api.ts';
import { errorMessage } from '../../../../shared/errors.ts';
import { connectWalletExtensions, isUserRejection, signPayloadWith, type WalletExtensions } from '../../lib/wallet-extension.ts';
import { ActionError, useAction } from '../common/use-action.tsx';

type Found = { state: 'looking' } | { state: 'failed'; why: string } | ({ state: 'found' } & WalletExtensions);

export function BrowserWalletInPlace({ signing }: { signing: BrowserSigningView }) {
  const { busy, error, invoke } = useAction();
  const [found, setFound] = useState<Found>({ state: 'looking' });
  const [picked, setPicked] = useState<number | null>(null);
  const [note, setNote] = useState<{ text: string; bad: boolean } | null>(null);
  /** The extension that signs once the engine has built the payload (set when the user chose here). */
  const [source, setSource] = useState<string | null>(null);
  const signed = useRef<string | null>(null);

  useEffect(() => {
    let live = true;
    connectWalletExtensions().then(
      (ext) => live && setFound({ state: 'found', ...ext }),
      (e: unknown) => live && setFound({ state: 'failed', why: errorMessage(e) || 'the extension API failed' }),
    );
    return () => {
      live = false;
    };
  }, []);

  const accounts = useMemo(() => (found.state === 'found' ? found.accounts : []), [found]);
  // The account the engine already holds (fixed, or picked on the loopback page): its extension signs.
  const holder = signing.address ? accounts.find((a) => a.address === signing.address) : undefined;
  useEffect(() => {
    if (picked !== null || !signing.preselect) return;
    const i = accounts.findIndex((a) => a.address === signing.preselect);
    if (i >= 0) setPicked(i);
  }, [accounts, picked, signing.preselect]);

  // The payload is ready for the account chosen here: ask the extension once, answer the engine.
  const payload = signing.phase === 'sign' ? signing.payload : null;
  useEffect(() => {
    if (!payload || !source || payload.address !== signing.address) return;
    const key = `${payload.address}:${payload.nonce}:${payload.method}`;
    if (signed.current === key) return;
    signed.current = key;
    setNote({ text: `Asking ${source} to sign… check its popup.`, bad: false });
    signPayloadWith(source, payload as unknown as SignerPayloadJSON).then(
      async (signature) => {
        const r = await invoke('wallet.answerSigning', { signature });
        setNote(r.ok ? { text: 'Signed: the engine submits the registration.', bad: false } : null);
      },
      async (e: unknown) => {
        const message = errorMessage(e);
        if (isUserRejection(message)) {
          await invoke('wallet.answerSigning', { decline: `declined in ${source}` });
          setNote({ text: `You declined in ${source}: nothing was signed or sent.`, bad: true });
        } else setNote({ text: `${source} did not sign: ${message}`, bad: true });
      },
    );
  }, [payload, source, signing.address, invoke]);

  if (found.state === 'looking')
    return (
      <p className="muted small" role="status">
        Looking for a wallet extension in this browser…
      </p>
    );
  if (found.state === 'failed') return <p className="muted small">This browser's wallet extension could not be asked ({found.why}): use the signing page instead.</p>;
  if (found.sources.length === 0) {
    return (
      <p className="muted small" data-testid="in-place-none">
        {found.installed
          ? 'A wallet extension is installed in this browser but did not let this page in: allow "engy panel" in it and reload to sign here.'
          : 'No wallet extension in this browser: open the signing page above on the engine\u2019s machine, or open this panel in a browser with polkadot{.js}, Talisman or SubWallet to sign here.'}
      </p>
    );
  }

  const choose = async (index: number) => {
    const a = accounts[index]!;
    setSource(a.source);
    const r = await invoke('wallet.answerSigning', { account: a.address });
    if (!r.ok) setSource(null);
  };
  const signFixed = () => setSource(holder?.source ?? null);

  return (
    <fieldset className="card stack" data-testid="in-place-signing" aria-describedby="in-place-what">
      <legend>Sign here with your browser wallet</legend>
      <p id="in-place-what" className="small">
        {signing.description}
        {signing.costTao ? ` · costs ${signing.costTao} now, burned, paid by the account that signs` : ''}
      </p>
      {signing.phase === 'pick' ? (
        accounts.length === 0 ? (
          <p className="small">Your wallet extension shares no account with this page: add or unlock the account that pays, then reload.</p>
        ) : (
          <>
            <div role="radiogroup" aria-label="Accounts of this browser's wallet extensions" className="stack" style={{ gap: 6 }}>
              {accounts.map((a, i) => (
                <label key={`${a.source}:${a.address}`} className="row small" style={{ flexWrap: 'nowrap', alignItems: 'start' }}>
                  <input type="radio" name="in-place-account" checked={picked === i} onChange={() => setPicked(i)} />
                  <span style={{ minWidth: 0, overflowWrap: 'anywhere' }}>
                    {a.name || 'Account'} ({a.source}) <span className="mono">{a.address}</span>
                  </span>
                </label>
              ))}
            </div>
            <div className="row">
              <button className="btn primary" disabled={busy || picked === null} onClick={() => picked !== null && void choose(picked)}>
                Sign here with this account
              </button>
            </div>
          </>
        )
      ) : source ? null : holder ? (
        <div className="row">
          <button className="btn primary" disabled={busy} onClick={signFixed}>
            Sign here with {holder.source}
          </button>
        </div>
      ) : (
        <p className="small">
          None of this browser's wallet extensions holds <span className="mono">{signing.address}</span>, the account this registration was started for: sign on the signing page, or add that account
          to your extension.
        </p>
      )}
      {note && (
        <p className={note.bad ? 'error-box small' : 'small'} role="status">
          {note.text}
        </p>
      )}
      <ActionError error={error} />
    </fieldset>
  );
}
