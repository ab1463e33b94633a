import type { Readable } from 'node:stream';

export interface CliIo {
  stdin: Readable;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: NodeJS.ProcessEnv;
  /** Resolves when the process is asked to stop (SIGINT/SIGTERM); long-running commands await it. */
  stopSignal: Promise<string>;
}

/** A subcommand: gets the arguments after its name, returns the exit code. */
export type CliCommand = (args: string[], io: CliIo) => Promise<number>;

export async function readStdin(stdin: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stdin) chunks.push(typeof c === 'string' ? Buffer.from(c) : (c as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
