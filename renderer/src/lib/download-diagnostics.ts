import { engineApi } from '../stores/engine-store.ts';

/**
 * Asks the engine for the (already redacted) diagnostics bundle and hands it to the browser as a file
 * download: a remote browser gets the file on its own machine, not a path on the rig. Returns an
 * error sentence, or null once the download started.
 */
export async function downloadDiagnostics(): Promise<{ fileName: string; bytes: number } | { error: string }> {
  const r = await engineApi().invoke('diagnostics.download', null);
  if (!r.ok) return { error: r.error.message };
  const url = URL.createObjectURL(new Blob([r.value.content], { type: 'application/json' }));
  try {
    const a = document.createElement('a');
    a.href = url;
    a.download = r.value.fileName;
    document.body.appendChild(a);
    a.click();
    a.remove();
  } finally {
    // Revoke after the click has been handled, so the download can read the blob.
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }
  return { fileName: r.value.fileName, bytes: r.value.bytes };
}
