// Utility-process entry for bench/desktop-lag.bench.ts: proves the bodies it is asked for over
// `process.parentPort` (Electron's utility process API; the stand-in's utilityProcess provides it).
import { proveBodies } from './prove-bodies.ts';

interface ParentPort {
  on(event: 'message', listener: (e: { data: { count: number } }) => void): void;
  postMessage(message: unknown): void;
}
const port = (process as unknown as { parentPort: ParentPort }).parentPort;
port.on('message', (e) => {
  proveBodies(e.data.count).then(
    () => port.postMessage({ ok: true }),
    (err: unknown) => port.postMessage({ ok: false, message: String(err) }),
  );
});
port.postMessage({ ready: true });
