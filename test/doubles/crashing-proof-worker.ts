// TEST DOUBLE: a proof worker that dies on its first body chunk, as a worker would on a native
// crash or an out-of-memory kill. Everything else it hands to the real worker code.
import { parentPort } from 'node:worker_threads';

parentPort!.on('message', (msg: { type: string }) => {
  if (msg.type === 'chunk') process.exit(70);
});
