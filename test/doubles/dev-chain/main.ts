// TEST DOUBLE. Runs the dev chain as its own process for integration tests and demos:
//   node test/doubles/dev-chain/main.ts --port 0 --block-ms 500 [--seed seed.json] [--start-blocks 10]
// Prints one line `dev-chain listening <url>` on stdout once it accepts connections; SIGTERM/SIGINT stop it.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { startDevChain } from './index.ts';
import type { DevChainSeed } from './state.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '9944' },
    host: { type: 'string', default: '127.0.0.1' },
    'block-ms': { type: 'string', default: '500' },
    seed: { type: 'string' },
    'start-blocks': { type: 'string', default: '0' },
  },
});

const seed = values.seed ? (JSON.parse(readFileSync(values.seed, 'utf8')) as DevChainSeed) : {};
const dev = await startDevChain({
  port: Number(values.port),
  host: values.host,
  blockMs: Number(values['block-ms']),
  startBlocks: Number(values['start-blocks']),
  seed,
});
process.stdout.write(`dev-chain listening ${dev.url}\n`);
const stop = () => {
  void dev.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
