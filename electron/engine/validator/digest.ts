// sha256 as lowercase hex: the digest the provider signs and the heartbeat carries. Its own file so the
// heartbeat (and the panel that names its version) loads no polkadot-js.
import { createHash } from 'node:crypto';

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
