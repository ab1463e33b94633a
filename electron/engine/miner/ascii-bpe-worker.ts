// Worker thread: reads a checkpoint's tokenizer.json and compiles the fast encoder's parts
// (ascii-bpe.ts) off the engine's thread: parsing a 12 MB tokenizer.json and walking a 248,320-token
// vocabulary takes hundreds of milliseconds, which would stall every leg and the UI as mining starts.
import { readFile } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { compileAsciiBpe, transferablesOf, type AsciiBpeParts } from './ascii-bpe.ts';

export type AsciiBpeReply = { parts: AsciiBpeParts } | { unsupported: string };

async function main(): Promise<void> {
  const path = (workerData as { path: string }).path;
  let reply: AsciiBpeReply;
  try {
    const parts = compileAsciiBpe(JSON.parse(await readFile(path, 'utf8')));
    reply = 'unsupported' in parts ? parts : { parts };
  } catch (e) {
    reply = { unsupported: (e as Error).message };
  }
  parentPort!.postMessage(reply, 'parts' in reply ? transferablesOf(reply.parts) : []);
}

void main();
