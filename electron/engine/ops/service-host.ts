import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CommandResult, SystemdHost } from './service-manager.ts';

/** The real host: systemctl/loginctl via execFile (no shell), paths from the environment. */
export function systemdHost(env: NodeJS.ProcessEnv = process.env): SystemdHost {
  // Under sudo, the unit belongs to the person who typed the command, not root.
  const username = env.SUDO_USER && env.SUDO_USER.length > 0 ? env.SUDO_USER : userInfo().username;
  const home = homedir();
  return {
    home,
    configHome: env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.length > 0 ? env.XDG_CONFIG_HOME : join(home, '.config'),
    systemRoot: '/',
    username,
    run: (cmd, args) =>
      new Promise<CommandResult>((resolve) => {
        execFile(cmd, [...args], { timeout: 60_000 }, (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : 127) : 0;
          resolve({ code, stdout: String(stdout), stderr: error && !stderr ? error.message : String(stderr) });
        });
      }),
  };
}

/** bin/engy-panel.mjs of this install: walk up from this module to the package root. */
export function resolveBinPath(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        const parsed = JSON.parse(readFileSync(pkg, 'utf8')) as { name?: unknown };
        if (parsed.name === 'engy-panel') return join(dir, 'bin', 'engy-panel.mjs');
      } catch {
        // not ours; keep walking
      }
    }
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the engy-panel package root; pass --bin /path/to/bin/engy-panel.mjs');
    dir = up;
  }
}
