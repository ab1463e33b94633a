// TEST DOUBLE: a proof worker that parses nothing. It keeps, in order, every message the pool sent
// it (type and job id), and answers each job's `end` with that whole log as the job's result, so
// a test can see what the worker was told and when.
import { parentPort } from 'node:worker_threads';

const log: string[] = [];
parentPort!.on('message', (msg: { type: string; id: number }) => {
  log.push(`${msg.type} ${msg.id}`);
  if (msg.type === 'end') parentPort!.postMessage({ type: 'parsed', id: msg.id, result: { log: [...log] } });
});
