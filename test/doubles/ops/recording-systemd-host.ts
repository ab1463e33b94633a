import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandResult, SystemdHost } from '../../../electron/engine/ops/service-manager.ts';

/**
 * A SystemdHost whose files live under a temp dir and whose systemctl/loginctl calls are recorded
 * and answered from a script, so install/status logic runs without a systemd on the machine.
 */
export interface RecordingSystemdHost extends SystemdHost {
  calls: string[];
  /** Answers by command line prefix ("systemctl --user show"); unmatched calls succeed silently. */
  answers: Map<string, CommandResult>;
  root: string;
}

export function recordingSystemdHost(username = 'miner1'): RecordingSystemdHost {
  const root = mkdtempSync(join(tmpdir(), 'engy-systemd-'));
  const calls: string[] = [];
  const answers = new Map<string, CommandResult>();
  return {
    root,
    calls,
    answers,
    home: join(root, 'home'),
    configHome: join(root, 'home', '.config'),
    systemRoot: root,
    username,
    run: async (cmd, args) => {
      const line = [cmd, ...args].join(' ');
      calls.push(line);
      for (const [prefix, answer] of answers) if (line.startsWith(prefix)) return answer;
      return { code: 0, stdout: '', stderr: '' };
    },
  };
}
