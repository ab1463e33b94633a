import { isAbsolute } from 'node:path';
import type { FetchFn } from '../../lib/fetch.ts';

/** One file of a Hub repo, with the size of the real content (not of an LFS pointer). */
export interface HubFile {
  path: string;
  size: number;
  /** sha256 of the content for LFS files, when the Hub says. */
  sha256: string | null;
}

export interface HubLocation {
  endpoint: string;
  repo: string;
  revision: string;
  token: string | null;
}

export function hubLocation(repo: string, env: NodeJS.ProcessEnv, revision = 'main'): HubLocation {
  const endpoint = (env.HF_ENDPOINT && env.HF_ENDPOINT.length > 0 ? env.HF_ENDPOINT : 'https://huggingface.co').replace(/\/+$/, '');
  const token = env.HF_TOKEN || env.HUGGING_FACE_HUB_TOKEN || null;
  return { endpoint, repo, revision, token };
}

export function authHeaders(loc: HubLocation): Record<string, string> {
  return loc.token ? { authorization: `Bearer ${loc.token}` } : {};
}

function encodePath(p: string): string {
  return p.split('/').map(encodeURIComponent).join('/');
}

export function resolveUrl(loc: HubLocation, path: string): string {
  return `${loc.endpoint}/${loc.repo}/resolve/${encodeURIComponent(loc.revision)}/${encodePath(path)}`;
}

export class HubError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'HubError';
    this.status = status;
  }
}

export function hubErrorFor(status: number, what: string, hasToken: boolean): HubError {
  if (status === 401 || status === 403) {
    return new HubError(status, hasToken ? `The Hugging Face Hub refused the token for ${what}: check HF_TOKEN.` : `The Hugging Face Hub wants a login for ${what}: set HF_TOKEN.`);
  }
  if (status === 404) return new HubError(status, `${what} was not found on the Hub: check the repo name and revision.`);
  return new HubError(status, `The Hugging Face Hub answered ${status} for ${what}; try again later.`);
}

function nextLink(header: string | null): string | null {
  if (!header) return null;
  for (const part of header.split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (m) return m[1]!;
  }
  return null;
}

/**
 * A listed file we may write or check: a relative path that stays inside the checkpoint folder, a byte
 * size, a sha256 (lower-case hex) or none. Used on the Hub's listing and on the copy we keep of it.
 */
export function checkedHubFile(f: unknown): HubFile | null {
  if (typeof f !== 'object' || f === null || Array.isArray(f)) return null;
  const { path, size, sha256 } = f as Record<string, unknown>;
  if (typeof path !== 'string' || path.length === 0 || path.length > 1024 || isAbsolute(path) || path.split(/[\\/]/).some((seg) => seg === '..' || seg === '' || seg === '.')) return null;
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) return null;
  if (sha256 !== undefined && sha256 !== null && (typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256))) return null;
  return { path, size, sha256: typeof sha256 === 'string' ? sha256 : null };
}

interface TreeEntry {
  type?: string;
  path?: string;
  size?: number;
  lfs?: { oid?: string; size?: number };
}

/** Every file of the repo at the revision, following the tree listing's pagination. */
export async function listHubFiles(loc: HubLocation, fetchFn: FetchFn, signal?: AbortSignal): Promise<HubFile[]> {
  const files: HubFile[] = [];
  let url: string | null = `${loc.endpoint}/api/models/${loc.repo}/tree/${encodeURIComponent(loc.revision)}?recursive=true&expand=false`;
  while (url) {
    const res: Response = await fetchFn(url, { headers: authHeaders(loc), signal: signal ?? null });
    if (!res.ok) throw hubErrorFor(res.status, `${loc.repo}@${loc.revision}`, loc.token !== null);
    const page = (await res.json()) as unknown;
    if (!Array.isArray(page)) throw new HubError(res.status, 'The Hub sent a file list this app does not understand.');
    for (const e of page as TreeEntry[]) {
      if (e.type !== 'file' || typeof e.path !== 'string') continue;
      const size = e.lfs?.size ?? e.size;
      if (typeof size !== 'number') continue;
      const file = checkedHubFile({ path: e.path, size, sha256: e.lfs?.oid ?? null });
      // A path that leaves the folder (or a size or hash that is not one) is not a checkpoint file: never written.
      if (!file)
        throw new HubError(
          res.status,
          `The Hub listed "${e.path.slice(0, 200)}" (${String(size).slice(0, 40)} bytes), which is not a file this app can place inside the checkpoint folder: nothing was downloaded. Check HF_ENDPOINT and the repository.`,
        );
      files.push(file);
    }
    url = nextLink(res.headers.get('link'));
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
