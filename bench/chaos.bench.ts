// The daemons through a storm (the same runs the chaos tests assert on): faults survived and the
// daemon's resident memory after its first qualification / first applied epoch and after the storm.
import { runMineChaos } from '../test/helpers/mine-chaos.ts';
import { runValidateChaos } from '../test/helpers/validate-chaos.ts';

const mib = (kib: number) => `${(kib / 1024).toFixed(1)} MiB`;
const total = (faults: Record<string, number>) => Object.values(faults).reduce((a, b) => a + b, 0);

export async function bench(): Promise<void> {
  const m = await runMineChaos({ gatewayRestarts: 3 });
  // As the chaos test counts: a request the gateway sent and saw answered but the miner never recorded is lost.
  // Malformed serve frames are answered with an error (so the gateway never waits out its deadline) and are
  // not requests: they are reported apart, not as losses.
  const answered = [...m.responses.keys()].filter((id) => m.sent.has(id));
  const lost = answered.filter((id) => !m.records.has(id)).length;
  const malformedAnswered = [...m.responses.keys()].filter((id) => !m.sent.has(id)).length;
  const doubled = [...m.records.values()].filter((n) => n > 1).length;
  console.log(
    `mine:     survived ${total(m.faults)} faults ${JSON.stringify(m.faults)} in ${m.seconds.toFixed(1)} s, exit ${m.exitCode}; ` +
      `${m.records.size} requests recorded, ${lost} lost, ${doubled} doubled (${malformedAnswered} malformed frames answered with an error); ` +
      `RSS ${mib(m.rssBeforeKiB)} before -> ${mib(m.rssAfterKiB)} after`,
  );
  const v = await runValidateChaos();
  console.log(
    `validate: survived ${total(v.faults)} faults ${JSON.stringify(v.faults)} in ${v.seconds.toFixed(1)} s, exit ${v.exitCode}; ` +
      `epochs landed ${v.submissions
        .filter((s) => s.ok && s.kind === 'fresh')
        .map((s) => s.epochIndex)
        .sort()
        .join(',')}; RSS ${mib(v.rssBeforeKiB)} before -> ${mib(v.rssAfterKiB)} after`,
  );
}
