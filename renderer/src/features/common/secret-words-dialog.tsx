import { useEffect, useRef, useState } from 'react';

export interface SecretWords {
  kind: 'hotkey' | 'coldkey';
  /** wallet/hotkey, or the wallet of a coldkey. */
  label: string;
  address: string;
  words: string;
}

/**
 * The show-once recovery words: a blocking modal (Escape does not close it) with the words, a copy
 * button, a warning, and an explicit "I have written them down" before it lets go. The words live
 * in this component's props only (never a store, log or snapshot) and are gone once it closes.
 */
export function SecretWordsDialog({ secret, onConfirmed }: { secret: SecretWords; onConfirmed: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [written, setWritten] = useState(false);
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  // Leaving (reload, close, another address) while the words are shown loses them for good: the browser asks first.
  useEffect(() => {
    const warn = (e: BeforeUnloadEvent) => {
      e.preventDefault();
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret.words);
      setCopied('yes');
    } catch {
      // Plain-http pages (a remote browser over a tunnel) have no clipboard API: the words are selectable.
      setCopied('failed');
    }
  };
  const words = secret.words.split(' ');
  const isCold = secret.kind === 'coldkey';
  return (
    <dialog ref={ref} className="secret-dialog" aria-labelledby="secret-title" onCancel={(e) => e.preventDefault()} data-testid="secret-dialog">
      <div className="stack" style={{ gap: 12 }}>
        <h2 id="secret-title" style={{ margin: 0 }}>
          Write down the recovery words of your new {secret.kind}
        </h2>
        <p className="small">Leaving or reloading this page before you confirm loses the words for good: the browser asks first.</p>
        <p className="secret-warning" role="alert">
          These {words.length} words are shown <b>once</b>. They are the only way to restore this {secret.kind} if this machine or its files are lost
          {isCold ? ', and anyone who sees them can spend the TAO on it' : ''}. Write them on paper in this order; do not save them in a screenshot, chat or cloud note.
        </p>
        <ol className="secret-words" data-testid="mnemonic" aria-label="Recovery words">
          {words.map((w, i) => (
            <li key={i}>
              <span className="muted small">{i + 1}</span> {w}
            </li>
          ))}
        </ol>
        <div className="small">
          {secret.label} · <span className="mono">{secret.address}</span>
        </div>
        <div className="row">
          <button className="btn" onClick={() => void copy()}>
            Copy the words
          </button>
          {copied === 'yes' && <span className="small muted">Copied. Paste them somewhere offline, then clear your clipboard.</span>}
          {copied === 'failed' && (
            <span className="small" style={{ color: 'var(--warn)' }}>
              This browser blocks copying here: select the words and copy them by hand.
            </span>
          )}
        </div>
        <label className="toggle">
          <input type="checkbox" checked={written} onChange={(e) => setWritten(e.target.checked)} /> I have written them down
        </label>
        <div className="row" style={{ justifyContent: 'flex-end' }}>
          <button
            className="btn primary"
            disabled={!written}
            onClick={() => {
              ref.current?.close();
              onConfirmed();
            }}
          >
            Done: continue setup
          </button>
        </div>
      </div>
    </dialog>
  );
}
