// Running a helper program (nvidia-smi, docker, python, hf) and reading its stdout. Injected as
// `ExecText` everywhere so tests can stand in for programs the test machine does not have.
import { execFile } from 'node:child_process';

export type ExecText = (file: string, args: string[], timeoutMs: number) => Promise<string>;

/** Runs a program and resolves its stdout; rejects with ENOENT when it is not installed. */
export const execText: ExecText = (file, args, timeoutMs) =>
  new Promise((resolve, reject) => {
    execFile(file, args, { timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        const e = error as NodeJS.ErrnoException & { stderr?: string; stdout?: string };
        e.stderr = String(stderr);
        e.stdout = String(stdout);
        reject(e);
      } else resolve(String(stdout));
    });
  });
