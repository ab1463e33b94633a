// TEST DOUBLE: loaded with --import in a stand-in utilityProcess child (electron.ts forks it). Gives the
// module Electron's `process.parentPort`: 'message' events carry `{ data }`, postMessage() answers the
// parent. Messages travel over the fork's IPC channel with structured-clone serialisation.
import { EventEmitter } from 'node:events';

interface ParentPort extends EventEmitter {
  postMessage(message: unknown): void;
}

const port = new EventEmitter() as ParentPort;
port.postMessage = (message: unknown): void => {
  if (process.connected) process.send?.({ parentPort: message });
};
process.on('message', (m: { parentPort?: unknown }) => {
  if (m && typeof m === 'object' && 'parentPort' in m) port.emit('message', { data: m.parentPort, ports: [] });
});
// Electron's utility process ends when its parent goes away.
process.on('disconnect', () => process.exit(0));
Object.defineProperty(process, 'parentPort', { value: port, configurable: true });
