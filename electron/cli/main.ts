import { COMMANDS } from './commands.ts';
import type { CliIo } from './types.ts';

function usage(): string {
  const rows = Object.entries(COMMANDS)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, c]) => `  ${name.padEnd(12)} ${c.summary}`);
  return ['usage: engy-panel <command> [options]', '', 'commands:', ...rows, ''].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const stopSignal = new Promise<string>((resolve) => {
    for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => resolve(sig));
  });
  const io: CliIo = {
    stdin: process.stdin,
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    env: process.env,
    stopSignal,
  };
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(usage());
    return name ? 0 : 2;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    io.stderr(`engy-panel: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  const mod = await entry.load();
  return mod.run(rest, io);
}
