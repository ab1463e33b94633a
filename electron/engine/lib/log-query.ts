// The Logs page's query: recent lines of one source or all, narrowed by a case-insensitive text
// match on the message or the source name.
import type { LogLine } from '../../../shared/logs.ts';
import type { LogHub } from './logger.ts';

export interface LogQuery {
  source?: string;
  limit?: number;
  query?: string;
}

export function queryLogs(logs: Pick<LogHub, 'recent' | 'sources'>, req: LogQuery): { lines: LogLine[]; sources: string[] } {
  const q = req.query?.toLowerCase();
  const lines = logs.recent({ ...(req.source ? { source: req.source } : {}), limit: req.limit ?? 2000 }).filter((l) => !q || l.msg.toLowerCase().includes(q) || l.source.toLowerCase().includes(q));
  return { lines, sources: logs.sources() };
}
