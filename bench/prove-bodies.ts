// The engine's proving work the desktop-lag bench measures: parse a 4096-token /generate body as it
// arrives (one 64 KiB chunk per turn of the event loop, as socket data comes in), then build its
// TOPLOC proofs. Run in the bench's own thread (in-process engine) or in a utility child
// (bench/engine-proof-child.ts), the way the desktop engine process runs it.
import { buildProofs, GenerateBodyParser, MINER_PROOF_PARAMS } from '../electron/engine/proof/index.ts';
import { syntheticGenerateBody } from '../test/helpers/synthetic-generate-body.ts';

export const TOKENS = 4096;
export const HIDDEN = 2048;

export async function proveBodies(count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const body = syntheticGenerateBody({ tokens: TOKENS, hidden: HIDDEN, chunkBytes: 1 << 16, sse: true, seed: 1000 + i });
    const parser = new GenerateBodyParser();
    for (const chunk of body.chunks()) {
      parser.push(chunk);
      await new Promise((r) => setImmediate(r));
    }
    const { rows } = parser.end();
    if (rows.rowCount !== TOKENS) throw new Error(`parse lost rows: ${rows.rowCount}`);
    if (buildProofs(rows, MINER_PROOF_PARAMS).length === 0) throw new Error('no proofs built');
  }
}
