// A failed checkpoint download in words: the Hub's and the disk's own errors already say what to do;
// a network failure ("fetch failed", ENOTFOUND...) becomes what happened, that progress is kept, and the fix.
import { describeNetworkError } from '../../lib/network-words.ts';
import { DiskFullError } from './hub-download.ts';
import { HubError } from './hub-files.ts';
import { errorMessage } from '../../../../shared/errors.ts';

const NETWORK = /fetch failed|ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|socket|terminated|network/i;

function chainText(e: unknown): string {
  const parts: string[] = [];
  let cur: unknown = e;
  for (let i = 0; i < 5 && cur; i++) {
    if (cur instanceof Error) parts.push(cur.message, String((cur as { code?: unknown }).code ?? ''));
    cur = (cur as { cause?: unknown }).cause;
  }
  return parts.join(' ');
}

export function downloadErrorSentence(e: unknown): string {
  if (e instanceof HubError || e instanceof DiskFullError) return e.message;
  if (e instanceof Error && (e.name === 'TimeoutError' || NETWORK.test(chainText(e))))
    return `Cannot reach the Hugging Face Hub: ${describeNetworkError(e)}. What was downloaded is kept: check the connection (or HF_ENDPOINT and any proxy), then press Resume download.`;
  const msg = errorMessage(e);
  return `The download stopped: ${msg.split('\n')[0]!.slice(0, 200)}. What was downloaded is kept; press Resume download to continue.`;
}
