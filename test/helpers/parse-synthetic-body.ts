// Child-process entry for the parser's memory test: streams a synthetic /generate body through
// GenerateBodyParser and prints one JSON line with what it found and the peak RSS.
// Usage: node parse-synthetic-body.ts <tokens> <hidden> <json|sse>
import { GenerateBodyParser } from '../../electron/engine/proof/index.ts';
import { rowsChecksum, syntheticGenerateBody } from './synthetic-generate-body.ts';

const startRss = process.memoryUsage().rss;
const [tokens, hidden, format] = process.argv.slice(2);
const body = syntheticGenerateBody({ tokens: Number(tokens), hidden: Number(hidden), chunkBytes: 1 << 16, sse: format === 'sse', reuseChunks: true });
const baseline = process.memoryUsage().rss;
const parser = new GenerateBodyParser();
let seen = 0;
// Sampled, not getrusage's maxRSS: on Linux that survives exec and can report the parent's size.
let peakRss = process.memoryUsage.rss();
let n = 0;
for (const chunk of body.chunks()) {
  parser.push(chunk);
  seen += chunk.length;
  if (++n % 8 === 0) peakRss = Math.max(peakRss, process.memoryUsage.rss());
}
const r = parser.end();
peakRss = Math.max(peakRss, process.memoryUsage.rss());
process.stdout.write(
  JSON.stringify({
    bytes: body.bytes,
    seen,
    rowCount: r.rows.rowCount,
    hiddenSize: r.rows.hiddenSize,
    checksumOk: rowsChecksum(r.rows.data) === body.checksum,
    finish: r.finishReason?.type ?? null,
    tokenIds: r.outputTokenIds.length,
    startRss,
    baselineRss: baseline,
    peakRss,
  }) + '\n',
);
