/** POSIX-shell quoting, so the command we show can be pasted into a terminal and means the same argv. */
export function shellQuote(arg: string): string {
  if (arg.length > 0 && /^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `'${arg.replaceAll("'", `'\\''`)}'`;
}

/** `A=1 B='x y' cmd arg ...` on one line. */
export function shellLine(env: Record<string, string>, command: string, args: readonly string[]): string {
  const assigns = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`);
  return [...assigns, shellQuote(command), ...args.map(shellQuote)].join(' ');
}
