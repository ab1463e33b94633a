// TEST DOUBLE. The Substrate JSON-RPC surface of the dev chain over websockets: every method @polkadot/api
// 16.5 calls on connect, on reads and on signAndSend (CHAIN.md 6.1), with real subscription notifications.
import { WebSocketServer, type WebSocket } from 'ws';
import type { AddressInfo } from 'node:net';
import type { Disposable } from '../../../electron/engine/lib/disposable.ts';
import type { DevBlock, DevChain } from './chain.ts';
import type { RpcError } from './extrinsic-check.ts';
import { runtimeCall } from './runtime-apis.ts';
import { errorMessage } from '../../../shared/errors.ts';

type Params = unknown[];
type Method = (params: Params, conn: Connection) => unknown;

class RpcFailure extends Error {
  readonly rpc: RpcError;
  constructor(rpc: RpcError) {
    super(rpc.message);
    this.rpc = rpc;
  }
}

interface Connection {
  ws: WebSocket;
  subs: Map<string, Disposable>;
}

const hex = (n: number) => `0x${n.toString(16)}`;

function headerJson(b: DevBlock) {
  const h = b.header;
  return {
    parentHash: h.parentHash.toHex(),
    number: hex(b.number),
    stateRoot: h.stateRoot.toHex(),
    extrinsicsRoot: h.extrinsicsRoot.toHex(),
    digest: { logs: [] },
  };
}

export interface RpcServer {
  url: string;
  /** How often each method was called (`state_call:<Api_method>` for runtime calls), for tests. */
  calls: Map<string, number>;
  /** Close every client connection (to test reconnects) without stopping the server. */
  dropConnections(): void;
  close(): Promise<void>;
}

/** `extra`: methods beyond Substrate's (the simulated network's faucet); they show in rpc_methods too. */
export async function startRpcServer(chain: DevChain, port: number, host = '127.0.0.1', extra: Record<string, Method> = {}): Promise<RpcServer> {
  let nextSub = 1;
  const need = (b: DevBlock | undefined, what: string): DevBlock => {
    if (!b) throw new RpcFailure({ code: 4003, message: `Client error: UnknownBlock: ${what}` });
    return b;
  };
  const storage = (at: unknown) => {
    const s = chain.storageAt(at as string | null | undefined);
    if (!s) throw new RpcFailure({ code: 4003, message: `Client error: state at ${String(at)} is not available (pruned or unknown)` });
    return s;
  };
  const subscribe = (conn: Connection, notify: string, attach: (send: (result: unknown) => void) => Disposable, initial?: unknown) => {
    const id = `dev-${nextSub++}`;
    const send = (result: unknown) => {
      if (conn.ws.readyState === conn.ws.OPEN) conn.ws.send(JSON.stringify({ jsonrpc: '2.0', method: notify, params: { subscription: id, result } }));
    };
    conn.subs.set(id, attach(send));
    if (initial !== undefined) setImmediate(() => send(initial));
    return id;
  };
  const unsubscribe = (params: Params, conn: Connection) => {
    const id = String(params[0]);
    const sub = conn.subs.get(id);
    if (!sub) return false;
    void sub.dispose();
    conn.subs.delete(id);
    return true;
  };
  const heads = (notify: string) => (_: Params, conn: Connection) => subscribe(conn, notify, (send) => chain.onBlock((b) => send(headerJson(b))), headerJson(chain.best));

  const methods: Record<string, Method> = {
    rpc_methods: () => ({ version: 1, methods: Object.keys(methods).sort() }),
    system_chain: () => 'engy dev chain (test double)',
    system_name: () => 'engy-dev-chain',
    system_version: () => '0.0.0-test-double',
    system_chainType: () => 'Development',
    system_properties: () => ({ ss58Format: 42, tokenDecimals: 9, tokenSymbol: 'TAO' }),
    system_health: () => ({ peers: 0, isSyncing: false, shouldHavePeers: false }),
    system_accountNextIndex: ([who]) => chain.state.account(String(who)).nonce + chain.pendingFor(String(who)),
    chain_getBlockHash: ([n]) => (n === undefined || n === null ? chain.best.hash : (chain.block(Number(n))?.hash ?? null)),
    chain_getHeader: ([h]) => {
      const b = chain.block(h as string | undefined);
      return b ? headerJson(b) : null;
    },
    chain_getBlock: ([h]) => {
      const b = chain.block(h as string | undefined);
      return b ? { block: { header: headerJson(b), extrinsics: b.extrinsics }, justifications: null } : null;
    },
    chain_getFinalizedHead: () => chain.finalized.hash,
    chain_subscribeNewHeads: heads('chain_newHead'),
    // polkadot-js subscribes with the singular alias; substrate nodes answer both.
    chain_subscribeNewHead: heads('chain_newHead'),
    chain_unsubscribeNewHead: unsubscribe,
    chain_subscribeAllHeads: heads('chain_allHead'),
    chain_subscribeFinalizedHeads: heads('chain_finalizedHead'),
    chain_unsubscribeNewHeads: unsubscribe,
    chain_unsubscribeAllHeads: unsubscribe,
    chain_unsubscribeFinalizedHeads: unsubscribe,
    state_getMetadata: () => `0x${Buffer.from(chain.rt.metadataBytes).toString('hex')}`,
    state_getRuntimeVersion: () => chain.rt.version,
    state_subscribeRuntimeVersion: (_, conn) => subscribe(conn, 'state_runtimeVersion', () => ({ dispose() {} }), chain.rt.version),
    state_unsubscribeRuntimeVersion: unsubscribe,
    state_getStorage: ([key, at]) => storage(at).get(String(key)) ?? null,
    state_queryStorageAt: ([keys, at]) => {
      const s = storage(at);
      const block = need(chain.block(at as string | undefined), String(at)).hash;
      return [{ block, changes: (keys as string[]).map((k) => [k, s.get(k) ?? null]) }];
    },
    state_getKeysPaged: ([prefix, count, startKey, at]) => {
      const p = String(prefix ?? '0x');
      const after = typeof startKey === 'string' && startKey.length > 0 ? startKey : '';
      return [...storage(at).keys()]
        .filter((k) => k.startsWith(p) && k > after)
        .sort()
        .slice(0, Number(count));
    },
    state_getKeys: ([prefix, at]) => [...storage(at).keys()].filter((k) => k.startsWith(String(prefix))).sort(),
    state_subscribeStorage: ([keys], conn) => {
      const list = (keys as string[] | undefined) ?? [];
      let last = new Map(list.map((k) => [k, chain.best.storage?.get(k) ?? null]));
      const initial = { block: chain.best.hash, changes: list.map((k) => [k, last.get(k) ?? null]) };
      return subscribe(
        conn,
        'state_storage',
        (send) =>
          chain.onBlock((b) => {
            const now = new Map(list.map((k) => [k, b.storage?.get(k) ?? null]));
            const changes = list.filter((k) => now.get(k) !== last.get(k)).map((k) => [k, now.get(k) ?? null]);
            last = now;
            if (changes.length > 0) send({ block: b.hash, changes });
          }),
        initial,
      );
    },
    state_unsubscribeStorage: unsubscribe,
    state_call: ([name, data]) => {
      const r = runtimeCall(chain, String(name), String(data ?? '0x'));
      if (!r.ok) throw new RpcFailure({ code: 4003, message: `Client error: Execution failed: ${r.message}` });
      return r.result;
    },
    author_pendingExtrinsics: () => chain.pending().map((t) => t.hex),
    author_submitExtrinsic: ([x]) => {
      const r = chain.submit(String(x));
      if (!r.ok) throw new RpcFailure(r.error);
      return r.hash;
    },
    author_submitAndWatchExtrinsic: ([x], conn) => {
      const r = chain.submit(String(x));
      if (!r.ok) throw new RpcFailure(r.error);
      return subscribe(conn, 'author_extrinsicUpdate', (send) =>
        chain.onTxStatus(({ hash, status }) => {
          if (hash !== r.hash) return;
          send('ready' in status ? 'ready' : status);
        }),
      );
    },
    author_unwatchExtrinsic: unsubscribe,
    ...extra,
  };

  const wss = new WebSocketServer({ host, port });
  await new Promise<void>((resolve, reject) => {
    wss.once('listening', () => resolve());
    wss.once('error', reject);
  });
  const conns = new Set<Connection>();
  const calls = new Map<string, number>();
  wss.on('connection', (ws) => {
    const conn: Connection = { ws, subs: new Map() };
    conns.add(conn);
    ws.on('close', () => {
      for (const s of conn.subs.values()) void s.dispose();
      conn.subs.clear();
      conns.delete(conn);
    });
    ws.on('message', (data) => {
      let req: { id?: unknown; method?: unknown; params?: unknown };
      try {
        req = JSON.parse(String(data)) as typeof req;
      } catch {
        ws.send(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
        return;
      }
      const reply = (body: object) => {
        if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ jsonrpc: '2.0', id: req.id, ...body }));
      };
      const name = String(req.method);
      const counted = name === 'state_call' && Array.isArray(req.params) ? `state_call:${String(req.params[0])}` : name;
      calls.set(counted, (calls.get(counted) ?? 0) + 1);
      const fn = methods[name];
      if (!fn) {
        reply({ error: { code: -32601, message: `Method not found: ${String(req.method)} (dev chain test double)` } });
        return;
      }
      try {
        reply({ result: fn(Array.isArray(req.params) ? req.params : [], conn) });
      } catch (e) {
        const err = e instanceof RpcFailure ? e.rpc : { code: -32603, message: errorMessage(e) };
        reply({ error: err });
      }
    });
  });

  const { port: bound } = wss.address() as AddressInfo;
  return {
    url: `ws://${host}:${bound}`,
    calls,
    dropConnections() {
      for (const c of conns) c.ws.terminate();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of conns) c.ws.terminate();
        wss.close(() => resolve());
      }),
  };
}
