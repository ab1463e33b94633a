import { COMMANDS } from './commands.ts';
import { reportFailure } from './run-command.ts';
import type { CliIo } from './types.ts';

function usage(): string {
  const rows = Object.entries(COMMANDS)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, c]) => `  ${name.padEnd(12)} ${c.summary}`);
  return ['usage: engy-panel <command> [options]', '', 'commands:', ...rows, ''].join('\n');
}

/**
 * A reader that closes the pipe early (`| head -2`) is not an error of ours: stop writing and keep
 * the exit code. Without a listener the EPIPE would surface as an uncaught exception with a trace.
 */
function guardPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') return;
      process.exitCode = 1;
    });
  }
}

export async function main(argv: string[]): Promise<number> {
  guardPipes();
  const [name, ...rest] = argv;
  const stopSignal = new Promise<string>((resolve) => {
    for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => resolve(sig));
  });
  const write = (stream: NodeJS.WriteStream) => (t: string) => {
    if (!stream.destroyed && stream.writable) stream.write(t);
  };
  const io: CliIo = {
    stdin: process.stdin,
    stdout: write(process.stdout),
    stderr: write(process.stderr),
    env: process.env,
    stopSignal,
  };
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(usage());
    return name ? 0 : 2;
  }
  if (!Object.hasOwn(COMMANDS, name)) {
    io.stderr(`engy-panel: unknown command "${name}"\n\n${usage()}`);
    return 2;
  }
  try {
    const mod = await COMMANDS[name]!.load();
    return await mod.run(rest, io);
  } catch (e) {
    return reportFailure(name, e, io);
  }
}
