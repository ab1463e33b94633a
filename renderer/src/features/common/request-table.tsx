import type { MinerRequestRecord } from '../../../../shared/miner.ts';
import { fmt } from '../mine/figures.ts';
import { num } from './format.ts';
import { Term } from './term.tsx';

/** One request table for Mine and History: the same columns, units and formatting as the cards. */
export function RequestTable({ rows, when, testId }: { rows: MinerRequestRecord[]; when: (r: MinerRequestRecord) => string; testId: string }) {
  return (
    <div className="table-scroll">
      <table data-testid={testId}>
        <thead>
          <tr>
            <th>Received</th>
            <th>Outcome</th>
            <th className="num">Prompt</th>
            <th className="num">Completion</th>
            <th className="num">Cached</th>
            <th className="num">TTFT (s)</th>
            <th className="num">TPOT (ms)</th>
            <th className="num">E2E (s)</th>
            <th className="num">Proof (ms)</th>
            <th>
              <Term k="legs">Leg</Term>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={`${r.corrId}-${r.receivedAt}`} data-request={r.requestId}>
              <td className="nowrap">{when(r)}</td>
              <td>
                <span className={`badge ${r.outcome === 'ok' ? 'ok' : r.outcome === 'cancelled' ? 'neutral' : 'bad'}`}>{r.outcome}</span> {r.cause ?? ''}
              </td>
              <td className="num">{num(r.promptTokens)}</td>
              <td className="num">{num(r.completionTokens)}</td>
              <td className="num">{num(r.cachedTokens)}</td>
              <td className="num" data-figure="request-ttft">
                {fmt.ttftS(r.ttftMs)}
              </td>
              <td className="num" data-figure="request-tpot">
                {fmt.tpotMs(r.tpotMs)}
              </td>
              <td className="num">{fmt.secs(r.e2eMs / 1000)}</td>
              <td className="num">{r.proofMs === null ? '—' : Math.round(r.proofMs)}</td>
              <td>{r.leg}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
