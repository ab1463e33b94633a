// Keys whose show-once words were never confirmed written down (the page was reloaded or closed with the
// dialog open): kept in this browser's storage by name only (never the words, which are gone), so the key is
// then offered with that said, not with a plain "Use". Per browser: another browser cannot know.
const KEY = 'engy.unconfirmedWords';
const MAX = 200;

type Store = Pick<Storage, 'getItem' | 'setItem'>;

export type WordsKey = `hotkey:${string}` | `coldkey:${string}`;
export const hotkeyWords = (wallet: string, hotkey: string): WordsKey => `hotkey:${wallet}/${hotkey}`;
export const coldkeyWords = (wallet: string): WordsKey => `coldkey:${wallet}`;

function storage(): Store | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

/** The recorded keys; anything malformed in storage reads as none (never a throw on the Setup page). */
export function unconfirmedWords(s: Store | null = storage()): Set<string> {
  try {
    const v: unknown = JSON.parse(s?.getItem(KEY) ?? '[]');
    return new Set(Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.length <= 600).slice(0, MAX) : []);
  } catch {
    return new Set();
  }
}

function write(keys: Set<string>, s: Store | null): void {
  try {
    s?.setItem(KEY, JSON.stringify([...keys].slice(-MAX)));
  } catch {
    // Storage full or blocked: the warning is lost, the key is not.
  }
}

/** Before the words dialog opens: the key counts as unconfirmed until the user says otherwise. */
export function markUnconfirmed(k: WordsKey, s: Store | null = storage()): void {
  write(unconfirmedWords(s).add(k), s);
}

export function markConfirmed(k: WordsKey, s: Store | null = storage()): void {
  const keys = unconfirmedWords(s);
  keys.delete(k);
  write(keys, s);
}
