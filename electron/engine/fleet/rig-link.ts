// One rig, reached over SSH (docs/fleet.md): read its token and loopback port with
// `engy-panel headless --print-access` over ssh, forward a local port to that loopback port with
// `ssh -L ... cat` (a session that ends with the panel), and speak the ordinary WebSocket contract through it with the token as a bearer header.
// Every step has a deadline; any failure tears the tunnel down and retries with backoff, saying since
// when the rig is down. A rig never affects another: each link owns its processes, timers and state.
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';
import WebSocket, { type RawData } from 'ws';
import * as v from 'valibot';
import { CONTRACT_VERSION } from '../../../shared/api.ts';
import { errorMessage } from '../../../shared/errors.ts';
import type { RigConfig, RigHostKey, RigLinkState } from '../../../shared/fleet.ts';
import { err, type Result } from '../../../shared/result.ts';
import { Backoff } from '../lib/backoff.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { RigLinkView } from './fleet-row.ts';
import { acceptHostKey, describeHostKey } from './host-keys.ts';
import { readRigFrame } from './rig-frames.ts';
import { PendingInvokes } from './rig-invokes.ts';
import type { RelayAccess } from './rig-relay.ts';
import { isRigTopic, parseRigTopic, rigTopicIssue, type RigNotification, type RigTopics } from './rig-topics.ts';
import { checkRemotePath, parseRemoteCommand, parseRigTarget, type RigAddress } from './rig-target.ts';
import { classifySshError, runCapped, sshOptions, type SshTools } from './ssh.ts';

export interface RigLinkLimits {
  /** A WebSocket message larger than this closes the link (the rig is refused, then retried). */
  maxFrameBytes: number;
  /** `--print-access` over ssh: connect, authenticate, answer. */
  accessTimeoutMs: number;
  /** From spawning the tunnel to its local port accepting. */
  tunnelTimeoutMs: number;
  /** An invoke (app.info, mining.start...) answered by the rig. */
  invokeTimeoutMs: number;
  /** A rig that answers no ping for this long is treated as gone. */
  pingTimeoutMs: number;
  backoffInitialMs: number;
  backoffMaxMs: number;
}

export const DEFAULT_RIG_LIMITS: RigLinkLimits = {
  maxFrameBytes: 8 * 1024 * 1024,
  accessTimeoutMs: 20_000,
  tunnelTimeoutMs: 20_000,
  invokeTimeoutMs: 15_000,
  pingTimeoutMs: 20_000,
  backoffInitialMs: 1_000,
  backoffMaxMs: 30_000,
};

export interface RigLinkOptions {
  config: RigConfig;
  tools: SshTools;
  clock: Clock;
  log: Logger;
  onChange: () => void;
  /** The rig's notifications snapshot, each time a valid one arrives; `rigWebhook`: whether the rig posts to a webhook of its own (null: it does not say). */
  onNotifications?: (rig: RigConfig, recent: readonly RigNotification[], rigWebhook: boolean | null) => void;
  limits?: Partial<RigLinkLimits>;
}

const accessSchema = v.strictObject({
  token: v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{24,512}$/)),
  port: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(65535))),
  running: v.boolean(),
  version: v.pipe(v.string(), v.maxLength(64)),
  contract: v.pipe(v.number(), v.integer(), v.minValue(0)),
});
type Access = v.InferOutput<typeof accessSchema>;

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** The tunnel session's remote command: lives exactly as long as the panel's end of ssh's stdin (see openTunnel). */
export const TUNNEL_HOLD = 'cat';

/** A free loopback port for the tunnel's local end (ssh binds it right after; a lost race is retried). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = connect(port, '127.0.0.1');
    c.once('connect', () => (c.destroy(), resolve(true)));
    c.once('error', () => resolve(false));
  });
}

const sizeText = (bytes: number) => (bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MiB` : `${Math.round(bytes / 1024)} KiB`);

/** Which side to update when the contract versions differ. */
export function contractAdvice(rig: number, panel: number, name: string): string {
  return rig < panel
    ? `${name} runs an older engy-panel (contract ${rig}; this panel speaks ${panel}): update engy-panel on the rig.`
    : `${name} runs a newer engy-panel (contract ${rig}; this panel speaks ${panel}): update this panel.`;
}

export class RigLink {
  readonly config: RigConfig;
  private readonly opts: RigLinkOptions;
  private readonly limits: RigLinkLimits;
  private readonly backoff: Backoff;
  private link: RigLinkState = 'connecting';
  private detail = 'Reaching the rig over SSH...';
  private unreachableSince: number | null = null;
  private hostKey: RigHostKey | null = null;
  private version: string | null = null;
  private contract: number | null = null;
  private refused = 0;
  private updatedAt: number | null = null;
  private topics: RigTopics = {};
  private gen = 0;
  private disposed = false;
  private retryTimer: unknown = null;
  private tunnel: ChildProcess | null = null;
  private ws: WebSocket | null = null;
  private readonly invokes: PendingInvokes;
  private pingTimer: ReturnType<typeof setInterval> | null = null;
  private lastPong = 0;
  /** The rig's token, read over SSH: engine memory only, for this link and the scoped panel's relay. */
  private token: string | null = null;

  constructor(opts: RigLinkOptions) {
    this.opts = opts;
    this.config = opts.config;
    this.limits = { ...DEFAULT_RIG_LIMITS, ...opts.limits };
    this.backoff = new Backoff({ initialMs: this.limits.backoffInitialMs, maxMs: this.limits.backoffMaxMs });
    this.invokes = new PendingInvokes(opts.clock, opts.config.name);
  }

  start(): void {
    void this.connect();
  }

  view(): RigLinkView {
    return {
      link: this.link,
      detail: this.detail,
      unreachableSince: this.unreachableSince,
      hostKey: this.hostKey,
      version: this.version,
      contract: this.contract,
      refused: this.refused,
      updatedAt: this.updatedAt,
      topics: this.topics,
    };
  }

  private get name(): string {
    return this.config.name;
  }

  private address(): RigAddress {
    return parseRigTarget(this.config.target);
  }

  private remote(...args: string[]): string[] {
    const words = parseRemoteCommand(this.config.command);
    const dataDir = this.config.dataDir ? ['--data-dir', checkRemotePath(this.config.dataDir)] : [];
    return [...words, ...args, ...dataDir];
  }

  private changed(): void {
    try {
      this.opts.onChange();
    } catch (e) {
      this.opts.log.warn(`fleet listener failed for ${this.name}: ${errorMessage(e)}`);
    }
  }

  private set(link: RigLinkState, detail: string): void {
    this.link = link;
    this.detail = detail;
    if (link === 'online') this.unreachableSince = null;
    else if (link !== 'connecting' && this.unreachableSince === null) this.unreachableSince = this.opts.clock.now();
    this.changed();
  }

  /** Reconnect now (after accepting a host key, starting the engine, or a user's "retry"). */
  retryNow(): void {
    if (this.disposed) return;
    this.backoff.reset();
    this.teardown();
    void this.connect();
  }

  private scheduleRetry(ms = this.backoff.next()): void {
    if (this.disposed) return;
    if (this.retryTimer !== null) this.opts.clock.clearTimeout(this.retryTimer);
    this.retryTimer = this.opts.clock.setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, ms);
  }

  /** Down: say why (and since when), drop the tunnel, try again later unless waiting on the user. */
  private down(link: RigLinkState, detail: string, retry: boolean): void {
    this.teardown();
    this.set(link, detail);
    this.opts.log.info(`${this.name}: ${detail}`);
    if (retry) this.scheduleRetry(link === 'incompatible' ? this.limits.backoffMaxMs : undefined);
  }

  private async connect(): Promise<void> {
    if (this.disposed) return;
    const gen = ++this.gen;
    if (this.retryTimer !== null) this.opts.clock.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const stale = () => gen !== this.gen || this.disposed;
    this.link = 'connecting';
    this.changed();
    let access: Access | null;
    try {
      access = await this.readAccess(gen);
    } catch (e) {
      if (!stale()) this.down('unreachable', `${this.name}: ${errorMessage(e)}`, true);
      return;
    }
    if (stale() || access === null) return;
    this.version = access.version;
    this.contract = access.contract;
    if (access.contract !== CONTRACT_VERSION) return this.down('incompatible', contractAdvice(access.contract, CONTRACT_VERSION, this.name), true);
    if (!access.running || access.port === null) {
      return this.down('engine-down', `No engine runs on ${this.name}: start it with Start engine (engy-panel service start on the rig) or run engy-panel headless there.`, true);
    }
    try {
      await this.openTunnel(access.port, gen);
      if (stale()) return;
      this.token = access.token;
      await this.openSocket(access.token, gen);
    } catch (e) {
      if (!stale()) this.down('unreachable', errorMessage(e), true);
    }
  }

  /** `engy-panel headless --print-access` over ssh; null when the link is now waiting on the user (host key). */
  private async readAccess(gen: number): Promise<Access | null> {
    const addr = this.address();
    const r = await runCapped(this.opts.tools.ssh, [...sshOptions(this.opts.tools, addr), '--', addr.destination, ...this.remote('headless', '--print-access')], {
      timeoutMs: this.limits.accessTimeoutMs,
      maxBytes: 64 * 1024,
    });
    if (gen !== this.gen || this.disposed) return null;
    if (r.timedOut) throw new Error(`answered nothing over SSH in ${Math.round(this.limits.accessTimeoutMs / 1000)} s (a slow or stuck rig); retrying.`);
    if (r.overflow) throw new Error("answered --print-access with more than 64 KiB: the rig's command is not engy-panel; check it in Settings > Rigs.");
    if (r.code === 255) {
      const c = classifySshError(r.stderr, this.name);
      if (c.kind === 'host-key-unknown' || c.kind === 'host-key-changed') {
        try {
          this.hostKey = await describeHostKey(this.opts.tools, addr);
        } catch (e) {
          this.hostKey = null;
          throw new Error(`${c.sentence} (its key could not be read: ${errorMessage(e)})`);
        }
        if (gen !== this.gen || this.disposed) return null;
        this.teardown();
        this.set(c.kind, c.sentence);
        return null;
      }
      throw new Error(c.sentence);
    }
    if (r.code === 3) {
      this.down('engine-down', `No engine has run on ${this.name} yet: start it once (Start engine, or engy-panel headless on the rig).`, true);
      return null;
    }
    if (r.code === 127) throw new Error(`${this.config.command} was not found on ${this.name}: set the rig's command in Settings > Rigs to where engy-panel is installed.`);
    if (r.code === 2) throw new Error(`${this.name}'s engy-panel does not know --print-access (older than the fleet): update engy-panel on the rig.`);
    if (r.code !== 0) throw new Error(`--print-access failed on ${this.name} (exit ${r.code}): ${r.stderr.trim().split('\n').at(-1)?.slice(0, 200) ?? ''}`);
    let raw: unknown;
    try {
      raw = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '');
    } catch {
      throw new Error(`${this.name} answered --print-access with something that is not its JSON: check the rig's command in Settings > Rigs.`);
    }
    const parsed = v.safeParse(accessSchema, raw);
    if (!parsed.success) throw new Error(`${this.name} answered --print-access in a shape this panel does not read: update engy-panel on the rig and on this panel to the same version.`);
    this.hostKey = null;
    return parsed.output;
  }

  private async openTunnel(remotePort: number, gen: number): Promise<void> {
    const addr = this.address();
    const local = await freePort();
    // Not `-N`: the session runs `cat` on the rig, reading the pipe this process holds as ssh's stdin. However
    // the panel ends (SIGKILL, a crash), the kernel closes that pipe, `cat` sees EOF and exits, and ssh exits
    // with it once the forwarded connections (this process's, closed too) are gone: no orphaned tunnel.
    const args = [...sshOptions(this.opts.tools, addr), '-T', '-o', 'ExitOnForwardFailure=yes', '-L', `127.0.0.1:${local}:127.0.0.1:${remotePort}`, '--', addr.destination, TUNNEL_HOLD];
    const child = spawn(this.opts.tools.ssh, args, { stdio: ['pipe', 'ignore', 'pipe'] });
    // Nothing is ever written; an ssh that exits first must not turn the pipe's EPIPE into an uncaught error.
    child.stdin!.on('error', () => undefined);
    this.tunnel = child;
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => {
      if (stderr.length < 8192) stderr += d.toString('utf8');
    });
    child.on('error', (e) => (stderr += e.message));
    child.once('exit', (code) => {
      if (this.tunnel !== child) return;
      this.tunnel = null;
      if (gen !== this.gen || this.disposed) return;
      const c = classifySshError(stderr, this.name);
      this.down('unreachable', code === 255 || stderr ? `The SSH tunnel to ${this.name} closed: ${c.sentence}` : `The SSH tunnel to ${this.name} closed; reconnecting.`, true);
    });
    const deadline = Date.now() + this.limits.tunnelTimeoutMs;
    this.localPort = local;
    for (;;) {
      if (gen !== this.gen || this.disposed) return;
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`The SSH tunnel to ${this.name} did not open: ${classifySshError(stderr, this.name).sentence}`);
      if (await accepts(local)) return;
      if (Date.now() > deadline) throw new Error(`The SSH tunnel to ${this.name} did not open in ${Math.round(this.limits.tunnelTimeoutMs / 1000)} s; retrying.`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The local end of the tunnel (tests and the scoped panel read it; never shown with the token). */
  localPort: number | null = null;

  /** Where the scoped panel's relay reaches the rig's engine, while this link is online. */
  relayAccess(): RelayAccess | null {
    return this.link === 'online' && this.localPort !== null && this.token !== null ? { port: this.localPort, token: this.token } : null;
  }

  private openSocket(token: string, gen: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${this.localPort}/ws`, {
        headers: { authorization: `Bearer ${token}` },
        maxPayload: this.limits.maxFrameBytes,
        handshakeTimeout: this.limits.invokeTimeoutMs,
        perMessageDeflate: false,
      });
      this.ws = ws;
      let opened = false;
      ws.on('open', () => {
        opened = true;
        this.lastPong = Date.now();
        ws.on('pong', () => (this.lastPong = Date.now()));
        this.pingTimer = setInterval(
          () => {
            if (Date.now() - this.lastPong > this.limits.pingTimeoutMs) {
              ws.terminate();
              return;
            }
            try {
              ws.ping();
            } catch {
              // closing: the close handler takes it from here
            }
          },
          Math.max(1000, Math.floor(this.limits.pingTimeoutMs / 4)),
        );
        this.pingTimer.unref?.();
        void this.invoke('app.info', null).then((r) => {
          if (gen !== this.gen || this.disposed) return;
          if (!r.ok) return this.down('unreachable', `${this.name} did not answer app.info: ${r.error.message}`, true);
          const info = isObj(r.value) ? r.value : {};
          const contract = typeof info.contract === 'number' ? info.contract : 0;
          if (typeof info.version === 'string') this.version = info.version.slice(0, 64);
          this.contract = contract;
          if (contract !== CONTRACT_VERSION) return this.down('incompatible', contractAdvice(contract, CONTRACT_VERSION, this.name), true);
          this.backoff.reset();
          this.set('online', `Connected through SSH to ${this.config.target}.`);
        });
        resolve();
      });
      ws.on('message', (data: RawData) => this.onMessage(data));
      ws.on('error', (e) => {
        if (/max payload/i.test(e.message)) {
          this.refused += 1;
          this.detail = `${this.name} sent a message over ${sizeText(this.limits.maxFrameBytes)}: refused; reconnecting.`;
        }
        if (!opened) reject(new Error(`The engine on ${this.name} refused the connection (${e.message}).`));
      });
      ws.on('close', (code) => {
        if (this.ws !== ws) return;
        this.ws = null;
        if (!opened || gen !== this.gen || this.disposed) return;
        const why = code === 1009 || / sent a message over /.test(this.detail) ? this.detail : `The connection to ${this.name}'s engine closed (code ${code}); reconnecting.`;
        this.down('unreachable', why, true);
      });
    });
  }

  private refuse(what: string): void {
    this.refused += 1;
    this.opts.log.warn(`${this.name} sent ${what}: ignored`);
    this.changed();
  }

  private onMessage(data: RawData): void {
    const frame = readRigFrame(this.name, data, this.limits.maxFrameBytes);
    if (frame.kind === 'refused') return this.refuse(frame.what);
    if (frame.kind === 'result') return this.invokes.settle(frame.id, frame.result);
    // The row reads snapshots only; the relay passes the rest on to a window that has the rig open.
    if (frame.kind !== 'snapshot') return;
    const topic = frame.topic;
    if (!isRigTopic(topic)) return;
    const parsed = parseRigTopic(topic, frame.data);
    if (!parsed.ok) return this.refuse(`a malformed ${topic} snapshot (${rigTopicIssue(topic, frame.data)})`);
    (this.topics as Record<string, unknown>)[topic] = parsed.value;
    this.updatedAt = this.opts.clock.now();
    if (topic === 'notifications' && this.opts.onNotifications) {
      try {
        const n = parsed.value as NonNullable<RigTopics['notifications']>;
        this.opts.onNotifications(this.config, n.recent, n.webhook ? n.webhook.configured : null);
      } catch (e) {
        this.opts.log.warn(`alerts from ${this.name} could not be taken: ${errorMessage(e)}`);
      }
    }
    this.changed();
  }

  /** An invoke on the rig's engine: its answer, or `unavailable` when the rig is not reachable now. */
  invoke(method: string, req: unknown, timeoutMs = this.limits.invokeTimeoutMs): Promise<Result<unknown>> {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return Promise.resolve(err('unavailable', `${this.name} is not connected (${this.detail})`));
    return this.invokes.send(ws, method, req, timeoutMs);
  }

  /** Runs `engy-panel <args>` on the rig over ssh (service start): exit code and the last line said. */
  async runRemote(args: string[], timeoutMs = 60_000): Promise<{ ok: boolean; message: string }> {
    const addr = this.address();
    const r = await runCapped(this.opts.tools.ssh, [...sshOptions(this.opts.tools, addr), '--', addr.destination, ...this.remote(...args)], { timeoutMs, maxBytes: 64 * 1024 });
    if (r.timedOut) return { ok: false, message: `${this.name} did not finish ${args.join(' ')} in ${Math.round(timeoutMs / 1000)} s.` };
    if (r.code === 255) return { ok: false, message: classifySshError(r.stderr, this.name).sentence };
    const last = (r.stdout + r.stderr).trim().split('\n').filter(Boolean).at(-1)?.slice(0, 300) ?? '';
    return { ok: r.code === 0, message: r.code === 0 ? `${this.name}: ${last || 'done'}` : `${this.name}: ${args.join(' ')} failed (exit ${r.code}): ${last}` };
  }

  /** Accepts the host key the user saw (its fingerprints), then connects. */
  async acceptHostKey(fingerprints: readonly string[]): Promise<void> {
    await acceptHostKey(this.opts.tools, this.address(), fingerprints);
    this.hostKey = null;
    this.opts.log.info(`${this.name}: host key accepted (${fingerprints.join(', ')})`);
    this.retryNow();
  }

  private teardown(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = null;
    this.invokes.failAll(`The connection to ${this.name} closed before it answered.`);
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.terminate();
    const t = this.tunnel;
    this.tunnel = null;
    if (t && t.exitCode === null) t.kill('SIGTERM');
    this.localPort = null;
  }

  dispose(): void {
    this.disposed = true;
    this.gen += 1;
    if (this.retryTimer !== null) this.opts.clock.clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.teardown();
  }
}
