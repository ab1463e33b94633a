// Copies a public value (an address) to the clipboard, saying whether it worked: a plain-http page (a remote
// browser over a tunnel) has no clipboard API, and then the text stays selectable beside the button.
import { useState } from 'react';

export function CopyButton({ text, what }: { text: string; what: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <button
      type="button"
      className="btn small-btn copy-btn"
      onClick={() => void copy()}
      aria-label={`Copy ${what}`}
      title={state === 'failed' ? 'This browser blocks copying here: select the text by hand.' : undefined}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Select it by hand' : 'Copy'}
    </button>
  );
}
