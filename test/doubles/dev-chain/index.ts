// TEST DOUBLE. A local subtensor stand-in for tests and demos: a JSON-RPC websocket server speaking the real
// finney metadata, an in-memory SubtensorModule seeded by the caller, and blocks on a timer.
//
//   const dev = await startDevChain({ port: 0, blockMs: 50, seed });
//   ... connect @polkadot/api (or PolkadotChainClient) to dev.url ...
//   dev.state.weightsOf(53, uid); dev.chain.submitted[0].hex; await dev.close();
import { DevChain } from './chain.ts';
import { startRpcServer } from './rpc-server.ts';
import { loadDevRuntime } from './runtime.ts';
import { DevChainState, type DevChainSeed } from './state.ts';
import { faucetMethods, type FaucetOptions } from './faucet.ts';

export type { DevChainSeed, SeedNeuron, SeedSubnet, DevNeuron, DevSubnet, AppliedExtrinsic } from './state.ts';
export { DevChainState } from './state.ts';
export type { DevChain, DevBlock } from './chain.ts';

export interface DevChainOptions {
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  /** Block time; 0 means no timer (call produceBlock() yourself). Default 500 ms. */
  blockMs?: number;
  seed?: DevChainSeed;
  /** Blocks to produce before serving, so LastUpdate values and mortal eras have history. */
  startBlocks?: number;
  /**
   * Timestamp.Now: 'nominal' (default) advances 12 s per block, so commit-reveal rounds computed from chain time come
   * due at the right block however fast blocks are produced; 'wall' is the wall clock at each block, for tests that
   * measure the chain's real block time (a fast local chain).
   */
  clock?: 'nominal' | 'wall';
  /** The simulated network's faucet (engyDev_faucet / engyDev_faucetDrip); absent: no faucet, like a real node. */
  faucet?: FaucetOptions;
}

export interface RunningDevChain {
  url: string;
  state: DevChainState;
  chain: DevChain;
  /** RPC method -> number of calls (`state_call:<Api_method>` for runtime calls). */
  rpcCalls: Map<string, number>;
  produceBlock(): void;
  /** Drop every client connection (the server keeps running), to exercise reconnects. */
  dropConnections(): void;
  close(): Promise<void>;
}

export async function startDevChain(opts: DevChainOptions = {}): Promise<RunningDevChain> {
  const state = new DevChainState(opts.seed ?? {});
  state.wallClock = opts.clock === 'wall';
  const chain = new DevChain(loadDevRuntime(), state);
  for (let i = 0; i < (opts.startBlocks ?? 0); i++) chain.produceBlock();
  const server = await startRpcServer(chain, opts.port ?? 0, opts.host, opts.faucet ? faucetMethods(chain, opts.faucet) : {});
  const blockMs = opts.blockMs ?? 500;
  const timer = blockMs > 0 ? setInterval(() => chain.produceBlock(), blockMs) : undefined;
  return {
    url: server.url,
    state,
    chain,
    rpcCalls: server.calls,
    produceBlock: () => void chain.produceBlock(),
    dropConnections: () => server.dropConnections(),
    async close() {
      if (timer) clearInterval(timer);
      await server.close();
    },
  };
}
