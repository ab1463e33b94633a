// The closed set of error codes that cross the contract. Add a code here before using it anywhere.
export const ERROR_CODES = [
  'bad-request',
  'unknown-method',
  'unauthorized',
  'not-found',
  'conflict',
  'internal',
  'unavailable',
  'timeout',
  'hardware-unsupported',
  'no-nvidia',
  'serve-failed',
  'serve-port-in-use',
  'checkpoint-incomplete',
  'disk-full',
  'gateway-unreachable',
  'gateway-denied',
  'proof-invalid',
  'payload-rejected',
  'chain-unreachable',
  'chain-rejected',
  'wallet-not-found',
  'wallet-locked',
  'wallet-bad-password',
  'wallet-exists',
  'wallet-legacy-format',
  'miner-key-missing',
  'not-registered',
  'data-dir-locked',
  'simulated-only',
  /** Start refused: the pre-flight checklist has blockers (the message lists every one). */
  'preflight-blocked',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** An error a service throws on purpose: the handler table turns it into a Result. */
export class AppFailure extends Error {
  readonly code: ErrorCode;
  readonly detail: string | undefined;
  constructor(code: ErrorCode, message: string, detail?: string) {
    super(message);
    this.name = 'AppFailure';
    this.code = code;
    this.detail = detail;
  }
}

/** The sentence of anything thrown: an Error's message, else its string form (a thrown string, a number). */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
