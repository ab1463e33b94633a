// The plain Node path, measured in the bench's run: the whole /generate body as one buffer,
// JSON.parse, then each row to float32 and bf16 bits. Prints one JSON line like
// reference_parse.py. Usage: node reference-parse-node.ts <tokens> <hidden>
import { readFileSync } from 'node:fs';
import { float32ArrayToBf16 } from '../electron/engine/proof/index.ts';
import { rowsChecksum, syntheticGenerateBody } from '../test/helpers/synthetic-generate-body.ts';

const status = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;
const [tokens, hidden] = process.argv.slice(2).map(Number) as [number, number];
const startRss = status('VmRSS');
// The body as a socket would have delivered it, gathered into one buffer (JSON.parse needs it whole).
const body = syntheticGenerateBody({ tokens, hidden, chunkBytes: 1 << 16, sse: true, reuseChunks: true });
const whole = Buffer.allocUnsafe(body.bytes);
let off = 0;
for (const chunk of body.chunks()) {
  whole.set(chunk, off);
  off += chunk.length;
}
const c0 = process.cpuUsage();
const w0 = performance.now();
const at = whole.lastIndexOf('data: {');
const end = whole.indexOf('\n\n', at);
const obj = JSON.parse(whole.toString('utf8', at + 6, end < 0 ? whole.length : end)) as { meta_info: { hidden_states: (number[] | number[][])[] } };
const rows: number[][] = [];
for (const el of obj.meta_info.hidden_states) {
  if (Array.isArray(el[0])) rows.push(...(el as number[][]));
  else rows.push(el as number[]);
}
const f32 = new Float32Array(rows.length * hidden);
rows.forEach((r, i) => f32.set(r, i * hidden));
const bf = float32ArrayToBf16(f32);
const u = process.cpuUsage(c0);
const wall = (performance.now() - w0) / 1000;
process.stdout.write(JSON.stringify({ cpu: (u.user + u.system) / 1e6, wall, startRss, peakRss: status('VmHWM'), rows: rows.length, checksumOk: rowsChecksum(bf) === body.checksum }) + '\n');
