// TEST DOUBLE (gateway): run the gateway double as its own process, for tests and the demo.
//   node test/doubles/gateway/main.ts --port 0 --workers 8 [--keys K1,K2] [--checkpoint DIR]
//        [--probe-waves N] [--probe-words N] [--probe-tokens N] [--no-probe] [--judge-ms MS]
// Prints `gateway double listening on ws://HOST:PORT/gw`; GET /gw/view shows its view as JSON.
import { join } from 'node:path';
import { createProofPort } from '../../../electron/engine/miner/proof-adapter.ts';
import { createModelAuditor } from './audit.ts';
import { GatewayDouble } from './gateway-double.ts';

function flag(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const checkpoint = flag('checkpoint') ?? join(import.meta.dirname, '..', '..', 'fixtures', 'checkpoint-tiny');
const gw = new GatewayDouble({
  port: Number(flag('port') ?? 0),
  host: flag('host') ?? '127.0.0.1',
  workers: Number(flag('workers') ?? 8),
  keys: (flag('keys') ?? process.env.ENGY_GATEWAY_DOUBLE_KEYS ?? 'mk-demo-0123456789abcdef').split(','),
  judgeAfterMs: Number(flag('judge-ms') ?? 3000),
  probe: process.argv.includes('--no-probe') ? false : { waves: Number(flag('probe-waves') ?? 1), promptWords: Number(flag('probe-words') ?? 200), maxTokens: Number(flag('probe-tokens') ?? 64) },
  auditor: createModelAuditor(checkpoint, createProofPort()),
});
const url = await gw.start();
process.stdout.write(`gateway double listening on ${url}\n`);
const stop = () => void gw.stop().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
