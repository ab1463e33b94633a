// TEST DOUBLE for Electron safeStorage (the SecretBox port): reversible and NOT secure; it only proves
// the store routes the key through the box and never writes it in clear when the box is available.
import type { SecretBox } from '../../electron/engine/wallet/miner-key-store.ts';

export class FakeSecretBox implements SecretBox {
  available: boolean;
  constructor(available = true) {
    this.available = available;
  }
  isAvailable(): boolean {
    return this.available;
  }
  encrypt(plain: string): Buffer {
    const b = Buffer.from(plain, 'utf8');
    return Buffer.concat([Buffer.from('FAKEBOX:'), b.map((x) => x ^ 0x5a)]);
  }
  decrypt(data: Buffer): string {
    if (!data.subarray(0, 8).equals(Buffer.from('FAKEBOX:'))) throw new Error('not sealed by this box');
    return Buffer.from(data.subarray(8).map((x) => x ^ 0x5a)).toString('utf8');
  }
}
