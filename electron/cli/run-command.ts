// How every command fails: a usage error prints its sentence and the command's usage and exits 2;
// --help prints the usage and exits 0; anything else thrown becomes one translated sentence (never a
// stack trace) and exit 1, or 2 when the engine called the request itself bad.
import { AppFailure } from '../../shared/errors.ts';
import { describeError } from '../engine/lib/fs-errors.ts';
import { HelpRequested, UsageError } from './args.ts';
import type { CliCommand, CliIo } from './types.ts';

export function reportFailure(name: string, e: unknown, io: CliIo): number {
  if (e instanceof HelpRequested) {
    io.stdout(e.usage);
    return 0;
  }
  if (e instanceof UsageError) {
    io.stderr(`engy-panel ${name}: ${e.message}\n\n${e.usage}`);
    return 2;
  }
  io.stderr(`engy-panel ${name}: ${describeError(e)}\n`);
  return e instanceof AppFailure && e.code === 'bad-request' ? 2 : 1;
}

/** Wraps a command body so it returns an exit code whatever it throws. */
export function cliCommand(name: string, body: CliCommand): CliCommand {
  return async (args, io) => {
    try {
      return await body(args, io);
    } catch (e) {
      return reportFailure(name, e, io);
    }
  };
}
