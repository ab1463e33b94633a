import { join } from 'node:path';
import type { CliCommand, CliIo } from './types.ts';
import { defineCommand, parseCommand, pickSubcommand, type OptionValues } from './args.ts';
import { cliCommand } from './run-command.ts';
import { detectHardware } from '../engine/hardware/detect.ts';
import { dataPaths, defaultHeadlessDataDir } from '../engine/lib/paths.ts';
import { minerModel } from '../engine/lib/model-catalog.ts';
import { LogHub, formatLine } from '../engine/lib/logger.ts';
import { PINNED_DOCKER_IMAGE, type RuntimeTarget } from '../engine/serve/launch-plan.ts';
import { detectRuntimes } from '../engine/serve/runtime-detect.ts';
import { trimModuleDir } from '../engine/serve/trim-module.ts';
import { createExternalFleet, createServeFleet, planLaunches } from '../engine/serve/serve-setup.ts';
import { formatPlanView, planView } from '../engine/serve/serve-plan-view.ts';
import { GpuSampler } from '../engine/serve/gpu-sampler.ts';
import { runCheckpointCommand } from './serve-checkpoint.ts';

const USAGE = `usage: engy-panel serve <plan|runtimes|checkpoint|run> [options]
  plan        [--json] [--checkpoint DIR] [--runtime python|docker] [--python PATH] [--docker PATH]
              each engine's argv, environment and port for this machine, and the MAX_INFLIGHT to declare
  runtimes    [--json] [--python PATH]   what can run sglang here, and what is missing
  checkpoint  [--dir DIR] [--download] [--json]   checkpoint state, identity and published root
  run         [--external URL,URL] [--checkpoint DIR] [--runtime ...] [--python PATH]
              start (or watch) the serve and supervise it until Ctrl+C
  common:     [--data-dir DIR]
`;

const COMMON = { 'data-dir': { kind: 'string' }, json: { kind: 'boolean' } } as const;
const PLAN_OPTIONS = { ...COMMON, checkpoint: { kind: 'string' }, runtime: { kind: 'string', choices: ['python', 'docker'] }, python: { kind: 'string' }, docker: { kind: 'string' } } as const;
const SPECS = {
  plan: defineCommand({ usage: USAGE, options: PLAN_OPTIONS }),
  runtimes: defineCommand({ usage: USAGE, options: { ...COMMON, python: { kind: 'string' }, docker: { kind: 'string' } } }),
  checkpoint: defineCommand({ usage: USAGE, options: { ...COMMON, dir: { kind: 'string' }, download: { kind: 'boolean' }, revision: { kind: 'string' } } }),
  run: defineCommand({ usage: USAGE, options: { ...PLAN_OPTIONS, external: { kind: 'list' } } }),
};
type PlanFlags = OptionValues<typeof PLAN_OPTIONS>;

function trimDirOrProblem(): { dir: string | null; problem: string | null } {
  try {
    return { dir: trimModuleDir(), problem: null };
  } catch (e) {
    return { dir: null, problem: (e as Error).message };
  }
}

async function prepare(p: PlanFlags, io: CliIo) {
  const dataDir = p['data-dir'] ?? defaultHeadlessDataDir(io.env);
  const model = minerModel();
  const checkpoint = p.checkpoint ?? join(dataPaths(dataDir).checkpoints, ...model.checkpoint.split('/'));
  const [report, runtimes] = await Promise.all([detectHardware({ dataDir }), detectRuntimes({ dataDir, python: p.python ?? null, docker: p.docker ?? 'docker' })]);
  const kind = p.runtime ?? runtimes.recommended ?? 'python';
  if (kind !== 'python' && kind !== 'docker') throw new Error(`--runtime wants python or docker, got "${kind}"`);
  const target: RuntimeTarget =
    kind === 'docker' ? { kind: 'docker', docker: p.docker ?? 'docker', image: PINNED_DOCKER_IMAGE, shmSize: '32g' } : { kind: 'python', python: p.python ?? runtimes.python?.python ?? 'python3' };
  const trim = trimDirOrProblem();
  const specs = report.plan ? await planLaunches(report.plan, { modelPath: checkpoint, target, trimDir: trim.dir, cacheDir: join(dataDir, 'serve-cache') }) : [];
  return { dataDir, report, runtimes, checkpoint, trim, specs };
}

async function plan(p: PlanFlags, io: CliIo): Promise<number> {
  const { report, runtimes, checkpoint, trim, specs } = await prepare(p, io);
  const view = planView(report, runtimes, specs, checkpoint, trim);
  io.stdout(p.json ? JSON.stringify(view, null, 2) + '\n' : formatPlanView(view));
  return report.plan ? 0 : 1;
}

async function runtimesCmd(p: OptionValues<typeof SPECS.runtimes.options>, io: CliIo): Promise<number> {
  const dataDir = p['data-dir'] ?? defaultHeadlessDataDir(io.env);
  const r = await detectRuntimes({ dataDir, python: p.python ?? null, docker: p.docker ?? 'docker' });
  if (p.json) io.stdout(JSON.stringify(r, null, 2) + '\n');
  else io.stdout([`recommended: ${r.recommended ?? 'none'}`, ...r.notes.map((n) => `  ${n}`), ''].join('\n'));
  return r.recommended ? 0 : 1;
}

async function runServe(p: OptionValues<typeof SPECS.run.options>, io: CliIo): Promise<number> {
  const hub = new LogHub({ echo: (line) => io.stdout(line + '\n') });
  const external = p.external;
  let fleet;
  if (external && external.length > 0) {
    fleet = createExternalFleet(external, 0, { logHub: hub });
  } else {
    const { report, trim, specs } = await prepare(p, io);
    if (!report.plan) {
      io.stderr(`No serve plan for this machine (${report.verdict}). Run \`engy-panel doctor\` for the reasons.\n`);
      return 1;
    }
    if (!trim.dir) io.stderr(`warning: ${trim.problem}; the serve starts untrimmed\n`);
    fleet = createServeFleet(report.plan, specs, trim.dir, { logHub: hub, gpuSampler: new GpuSampler() });
  }
  const states = new Map<number, string>();
  fleet.onDidChange((s) => {
    for (const e of s.engines) {
      const st = e.status;
      const label = st.state === 'starting' ? `starting (${st.phase})` : st.state;
      if (states.get(e.index) === label) continue;
      states.set(e.index, label);
      const extra = 'cause' in st ? ` — ${st.cause.cause} ${st.cause.fix}` : '';
      io.stderr(formatLine({ seq: 0, ts: Date.now(), level: 'info', source: `serve:${e.index}`, msg: `${label}${extra}` }) + '\n');
    }
  });
  fleet.start();
  // The engine's timers are unref'd (they must not keep a quitting app alive): hold the CLI open here.
  const keepAlive = setInterval(() => undefined, 1 << 30);
  try {
    await io.stopSignal;
    await fleet.dispose();
  } finally {
    clearInterval(keepAlive);
  }
  return 0;
}

export const run: CliCommand = async (args, io) =>
  cliCommand(`serve ${args[0] ?? ''}`.trim(), async () => {
    const { sub, rest } = pickSubcommand(args, ['plan', 'runtimes', 'checkpoint', 'run'] as const, USAGE);
    switch (sub) {
      case 'plan':
        return plan(parseCommand(rest, SPECS.plan).values, io);
      case 'runtimes':
        return runtimesCmd(parseCommand(rest, SPECS.runtimes).values, io);
      case 'checkpoint':
        return runCheckpointCommand(parseCommand(rest, SPECS.checkpoint).values, io);
      case 'run':
        return runServe(parseCommand(rest, SPECS.run).values, io);
    }
  })(args, io);
