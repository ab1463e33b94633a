// The worker side of ProofPool: parses /generate bodies and builds or verifies proofs off the
// caller's thread. One parser per open job; jobs on one worker run in message order.
import { parentPort } from 'node:worker_threads';
import { buildProofs } from './build.ts';
import { GenerateBodyParser } from './generate-parser.ts';
import type { FromWorker, ToWorker } from './pool-protocol.ts';
import { verifyProofs } from './verify.ts';
import type { ProofParams } from './types.ts';

const port = parentPort;
if (!port) throw new Error('proof-worker.ts runs only as a worker thread');

interface Job {
  parser: GenerateBodyParser;
  prove: ProofParams | null;
}
const jobs = new Map<number, Job>();

function post(msg: FromWorker, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(msg, transfer);
}

function fail(id: number, e: unknown): void {
  jobs.delete(id);
  const err = e instanceof Error ? e : new Error(String(e));
  post({ type: 'error', id, name: err.name, message: err.message });
}

/**
 * Frees transferred-in rows the moment their proofs are built, not at the worker's next major GC:
 * a 4096-row request holds 16 MiB, and a busy miner has many in flight. transfer(0) detaches the
 * buffer, which drops its memory; the buffers came in as transfers, so nothing else holds them.
 */
function release(...arrays: (Uint8Array | Uint16Array | null | undefined)[]): void {
  for (const a of arrays) {
    const buffer = a?.buffer as (ArrayBuffer & { transfer?: (n: number) => ArrayBuffer; detached?: boolean }) | undefined;
    if (buffer && typeof buffer.transfer === 'function' && buffer.detached === false) buffer.transfer(0);
  }
}

/**
 * Parsed bytes are acknowledged once per turn of this worker's loop, summed per job: the caller's
 * thread then handles one message per batch of chunks instead of one per chunk.
 */
const acks = new Map<number, number>();
let ackScheduled = false;
function ack(id: number, bytes: number): void {
  acks.set(id, (acks.get(id) ?? 0) + bytes);
  if (ackScheduled) return;
  ackScheduled = true;
  setImmediate(() => {
    ackScheduled = false;
    for (const [job, n] of acks) post({ type: 'consumed', id: job, bytes: n });
    acks.clear();
  });
}

port.on('message', (msg: ToWorker) => {
  const id = msg.id;
  try {
    switch (msg.type) {
      case 'open':
        jobs.set(id, {
          // Without a listener the parser keeps the text to itself: no message per event to the caller's thread.
          parser: new GenerateBodyParser({
            format: msg.format,
            onTextDelta: msg.text ? (delta) => post({ type: 'text', id, delta }) : undefined,
            expectRows: msg.expectRows,
            proveAsParsed: msg.proveAsParsed ?? undefined,
            finalTextOnly: !msg.text,
          }),
          prove: msg.prove,
        });
        return;
      case 'chunk': {
        const job = jobs.get(id);
        if (!job) return; // aborted or already failed
        job.parser.push(msg.bytes);
        const bytes = msg.bytes.byteLength;
        // Parsed: its memory goes now, not when this worker next collects garbage.
        release(msg.bytes);
        ack(id, bytes);
        return;
      }
      case 'end': {
        const job = jobs.get(id);
        if (!job) return;
        jobs.delete(id);
        const body = job.parser.end();
        if (body.proofs !== null) {
          // Proven as parsed: no rows to hand back, only the proofs.
          post({ type: 'parsed', id, result: { body, proofs: body.proofs } });
          return;
        }
        const proofs = job.prove && body.rows.rowCount > 0 ? buildProofs(body.rows, job.prove) : null;
        post({ type: 'parsed', id, result: { body, proofs } }, [body.rows.data.buffer as ArrayBuffer]);
        return;
      }
      case 'abort':
        jobs.delete(id);
        return;
      case 'build': {
        const proofs = buildProofs(msg.rows, msg.params, msg.prefill ?? undefined);
        release(msg.rows.data, msg.prefill);
        post({ type: 'built', id, proofs });
        return;
      }
      case 'verify': {
        const results = verifyProofs(msg.rows, msg.proofs, msg.options, msg.prefill ?? undefined);
        release(msg.rows.data, msg.prefill);
        post({ type: 'verified', id, results });
        return;
      }
    }
  } catch (e) {
    fail(id, e);
  }
});
