/** Minimal `--flag value` / `--flag=value` / `--switch` parser: the CLI has few flags and no need for a library. */
export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | true>;
}

export function parseArgs(args: string[], booleanFlags: readonly string[] = []): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) {
        flags.set(a.slice(2, eq), a.slice(eq + 1));
        continue;
      }
      const name = a.slice(2);
      const next = args[i + 1];
      if (booleanFlags.includes(name) || next === undefined || next.startsWith('--')) flags.set(name, true);
      else {
        flags.set(name, next);
        i++;
      }
    } else positionals.push(a);
  }
  return { positionals, flags };
}

export function flagString(p: ParsedArgs, name: string): string | undefined {
  const v = p.flags.get(name);
  return typeof v === 'string' ? v : undefined;
}

export function flagNumber(p: ParsedArgs, name: string): number | undefined {
  const v = flagString(p, name);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`--${name} wants a number, got "${v}"`);
  return n;
}
