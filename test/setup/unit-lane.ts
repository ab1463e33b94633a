// Vitest setup of the fast unit lane (vitest.config.ts, project `unit`): its files share one module
// cache per worker and must stay cheap, so starting a process or opening a socket there throws,
// telling the author to put the test in test/integration/ (which runs the same way under `npm test`).
import { createRequire, syncBuiltinESMExports } from 'node:module';

const GUARDED = Symbol.for('engy.test.unitLaneGuard');
const holder = globalThis as { [GUARDED]?: true };

function refuse(what: string): never {
  throw new Error(`the unit lane starts no process and opens no socket (${what}): move this test to test/integration/`);
}

if (!holder[GUARDED]) {
  holder[GUARDED] = true;
  const req = createRequire(import.meta.url);
  const cp = req('node:child_process') as Record<string, unknown>;
  for (const name of ['spawn', 'fork', 'exec', 'execFile', 'spawnSync', 'execSync', 'execFileSync']) {
    cp[name] = () => refuse(`child_process.${name}`);
  }
  const net = req('node:net') as typeof import('node:net');
  net.Server.prototype.listen = function listen() {
    return refuse('server.listen');
  } as typeof net.Server.prototype.listen;
  net.Socket.prototype.connect = function connect() {
    return refuse('socket.connect');
  } as typeof net.Socket.prototype.connect;
  syncBuiltinESMExports();
}
