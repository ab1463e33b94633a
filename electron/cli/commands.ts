import type { CliCommand } from './types.ts';

interface CommandEntry {
  summary: string;
  load: () => Promise<{ run: CliCommand }>;
}

/**
 * Every `engy-panel <name>` subcommand. Loaded lazily so `engy-panel toploc` does not pay for
 * @polkadot/api and `validate` does not pay for the renderer server.
 */
export const COMMANDS: Record<string, CommandEntry> = {
  validate: { summary: 'run the light validator without UI (--wallet, --hotkey; or the ENGY_SN53_* environment)', load: () => import('./validate.ts') },
  validator: { summary: 'validator tools: check-payload < payload.json (--master SS58, --netuid N); status (--data-dir D)', load: () => import('./validator.ts') },
  service: { summary: 'install|uninstall|status the systemd unit of a headless miner or validator', load: () => import('./service.ts') },
  headless: { summary: 'run the engine without a display and serve the panel to a browser (--port, --host, --data-dir)', load: () => import('./headless.ts') },
  serve: { summary: 'sglang serve: plan (argv/env/port per engine), runtimes, checkpoint (download, identity), run', load: () => import('./serve.ts') },
  wallet: { summary: 'btcli wallets: list, create-hotkey, status, register, miner-key (--wallet, --hotkey, --wallet-path)', load: () => import('./wallet.ts') },
  mine: { summary: 'run the miner without UI (--serve-url URL[,URL] --checkpoint DIR [--gateway wss://...] [--max-inflight N])', load: () => import('./mine.ts') },
  toploc: { summary: "TOPLOC proofs on the golden vectors' formats: build|verify|bf16 < case.json", load: () => import('./toploc.ts') },
  demo: { summary: 'the whole flow against a simulated network (no GPU, no internet): --headless, --port, --data-dir', load: () => import('./demo.ts') },
  prompt: { summary: 'prompt render --checkpoint DIR < request.json: the prompt and token ids the miner sends for a serve request', load: () => import('./prompt.ts') },
  chain: { summary: 'chain tools: tlock encrypt|decrypt --round R [--signature HEX] (hex on stdin; commit-reveal timelock)', load: () => import('./chain-tlock.ts') },
  doctor: { summary: 'hardware report: GPUs, host, verdict, serve plan (--json for scripts)', load: () => import('./doctor.ts') },
};
