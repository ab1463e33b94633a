// One strict argument parser for every command: a declarative options table per command (or
// subcommand), read by node:util's parseArgs in strict mode and then typed. An unknown flag, a flag
// without its value, a value of the wrong type or out of range, or an unexpected word throws a
// UsageError; main.ts prints its sentence and the command's usage and exits 2. `--help`/`-h` is in
// every table and prints the usage (exit 0).
import { parseArgs as nodeParseArgs } from 'node:util';
import { errorMessage } from '../../shared/errors.ts';

/**
 * string: any text; boolean: a switch (takes no value); int / number: checked against min/max;
 * list: comma-separated text, empty items dropped. `choices` limits a string to named values.
 */
export interface OptionSpec {
  kind: 'string' | 'boolean' | 'int' | 'number' | 'list';
  min?: number;
  max?: number;
  choices?: readonly string[];
}

export type OptionTable = Record<string, OptionSpec>;

type ValueOf<S extends OptionSpec> = S['kind'] extends 'boolean' ? boolean : S['kind'] extends 'int' | 'number' ? number : S['kind'] extends 'list' ? string[] : string;

/** The parsed flags: absent flags are undefined (defaults stay with the command that knows them). */
export type OptionValues<T extends OptionTable> = { [K in keyof T]?: ValueOf<T[K]> };

export interface CommandSpec<T extends OptionTable = OptionTable> {
  /** Printed after a usage error and for --help. */
  usage: string;
  options: T;
  /** How many bare words the command takes (default none). Words after `--` count too. */
  positionals?: { min?: number; max?: number };
}

export interface ParsedCommand<T extends OptionTable> {
  values: OptionValues<T>;
  positionals: string[];
}

/** Bad command line: exit 2 with the usage. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /** The command's usage text, printed under the message. */
  readonly usage: string;
  constructor(message: string, usage: string) {
    super(message);
    this.usage = usage;
  }
}

/** `--help` was asked for: print the usage on stdout, exit 0. */
export class HelpRequested extends Error {
  readonly usage: string;
  constructor(usage: string) {
    super('help');
    this.name = 'HelpRequested';
    this.usage = usage;
  }
}

/** Keeps the option kinds literal, so `values.port` is typed `number | undefined`. */
export function defineCommand<const T extends OptionTable>(spec: CommandSpec<T>): CommandSpec<T> {
  return spec;
}

function optionName(message: string): string {
  const m = /'(-{1,2}[^' ]+)/.exec(message);
  return m ? m[1]! : 'an option';
}

function typed(name: string, raw: string, spec: OptionSpec, usage: string): string | number | string[] {
  const flag = `--${name}`;
  if (spec.kind === 'int' || spec.kind === 'number') {
    const n = raw.trim() === '' ? NaN : Number(raw);
    const whole = spec.kind === 'int';
    if (!Number.isFinite(n) || (whole && !Number.isInteger(n))) throw new UsageError(`${flag} wants ${whole ? 'a whole number' : 'a number'}, got "${raw}"`, usage);
    if ((spec.min !== undefined && n < spec.min) || (spec.max !== undefined && n > spec.max)) {
      const range = spec.max === undefined ? `at least ${spec.min}` : spec.min === undefined ? `at most ${spec.max}` : `from ${spec.min} to ${spec.max}`;
      throw new UsageError(`${flag} must be ${range}, got ${raw}`, usage);
    }
    return n;
  }
  if (spec.choices && !spec.choices.includes(raw)) throw new UsageError(`${flag} must be one of ${spec.choices.join(', ')}, got "${raw}"`, usage);
  if (spec.kind === 'list')
    return raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0);
  if (raw.length === 0) throw new UsageError(`${flag} wants a value, got an empty one`, usage);
  return raw;
}

export function parseCommand<T extends OptionTable>(args: readonly string[], spec: CommandSpec<T>): ParsedCommand<T> {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  for (const [name, o] of Object.entries(spec.options)) options[name] = { type: o.kind === 'boolean' ? 'boolean' : 'string' };
  let parsed: ReturnType<typeof nodeParseArgs>;
  try {
    parsed = nodeParseArgs({ args: [...args], options, strict: true, allowPositionals: true, allowNegative: false });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const msg = errorMessage(e);
    const name = optionName(msg);
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') throw new UsageError(`unknown option ${name}`, spec.usage);
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      const wantsValue = /argument missing|ambiguous/.test(msg);
      throw new UsageError(wantsValue ? `${name} needs a value (write ${name} VALUE or ${name}=VALUE)` : `${name} is a switch and takes no value`, spec.usage);
    }
    throw new UsageError(msg.split('\n')[0]!, spec.usage);
  }
  if (parsed.values.help === true) throw new HelpRequested(spec.usage);
  const values: Record<string, unknown> = {};
  for (const [name, o] of Object.entries(spec.options)) {
    if (!Object.hasOwn(parsed.values, name)) continue;
    const raw = parsed.values[name];
    values[name] = o.kind === 'boolean' ? raw === true : typed(name, String(raw), o, spec.usage);
  }
  const positionals = parsed.positionals;
  const min = spec.positionals?.min ?? 0;
  const max = spec.positionals?.max ?? 0;
  if (positionals.length > max) throw new UsageError(`unexpected argument "${positionals[max]}"`, spec.usage);
  if (positionals.length < min) throw new UsageError(min === 1 ? 'missing an argument' : `needs ${min} arguments`, spec.usage);
  return { values: values as OptionValues<T>, positionals };
}

/**
 * For commands with subcommands (`wallet list`, `serve plan`...): the first word picks one of
 * `names`, the rest is parsed by that subcommand's own table. No word, or an unknown one, is a usage
 * error naming the choices.
 */
export function pickSubcommand<const K extends string>(args: readonly string[], names: readonly K[], usage: string): { sub: K; rest: string[] } {
  const [sub, ...rest] = args;
  if (sub === '--help' || sub === '-h' || sub === 'help') throw new HelpRequested(usage);
  if (sub === undefined) throw new UsageError(`which one? ${names.join(', ')}`, usage);
  if (!(names as readonly string[]).includes(sub)) throw new UsageError(`unknown subcommand "${sub}": use ${names.join(', ')}`, usage);
  return { sub: sub as K, rest };
}
