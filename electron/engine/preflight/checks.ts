// Each pre-flight check is a small pure function over snapshot data (PreflightFacts): the service
// gathers the facts, these decide. Pointing a check at a new field means changing one function here.
import type { HardwareReport } from '../../../shared/hardware.ts';
import type { CheckpointSnapshot, RuntimeReport } from '../../../shared/serve.ts';
import type { Settings } from '../../../shared/settings.ts';
import type { CheckpointFolderVerdict } from '../../../shared/sglang-setup.ts';
import type { MinerKeyStatus, MinerKeyVerification, RegistrationStatusSnapshot } from '../../../shared/wallet.ts';
import type { FixTarget, PreflightCheck, PreflightCheckId, PreflightReport, PreflightState, SetupStepId } from '../../../shared/preflight.ts';
import { PROVIDER_HOST } from '../../../shared/network.ts';

export interface PreflightFacts {
  settings: Settings;
  hardware: HardwareReport | null;
  /** What can run sglang here (null until the first detection finished). */
  runtimes: RuntimeReport | null;
  checkpoint: CheckpointSnapshot | null;
  /** The selected hotkey's SS58 address; null when none is chosen or its files cannot be read. */
  hotkeyAddress: string | null;
  /** Why the chosen hotkey could not be read, when it could not. */
  hotkeyProblem: string | null;
  registration: RegistrationStatusSnapshot | null;
  registrationError: string | null;
  minerKey: MinerKeyStatus;
  /** The gateway's answer to one HELLO with the stored key (the wallet snapshot's minerKeyCheck). */
  minerKeyVerification?: MinerKeyVerification | null;
  /** Room in the checkpoint folder for what is still to download (serve/checkpoint/folder-space.ts; null: not measured yet). */
  disk: CheckpointFolderVerdict | null;
}

const setup = (step: SetupStepId, label: string) => ({ label, target: { page: 'setup', step } as FixTarget });
const settingsFix = (field: 'chainUrl' | 'checkpointDir' | 'externalServeUrls' | 'gatewayUrl', label: string) => ({ label, target: { page: 'settings', field } as FixTarget });

function check(id: PreflightCheckId, title: string, state: PreflightState, sentence: string, fix: PreflightCheck['fix'] = null): PreflightCheck {
  return { id, title, state, sentence, fix: state === 'ok' ? null : fix };
}

const isMining = (s: Settings) => s.role === 'mine' || s.role === 'both';
const isValidating = (s: Settings) => s.role === 'validate' || s.role === 'both';

export function roleCheck(f: PreflightFacts, role: 'mine' | 'validate'): PreflightCheck {
  const on = role === 'mine' ? isMining(f.settings) : isValidating(f.settings);
  const verb = role === 'mine' ? 'Mine' : 'Validate';
  return check(
    'role',
    'Role',
    on ? 'ok' : 'blocked',
    on ? `This machine is set to ${f.settings.role === 'both' ? 'mine and validate' : role}.` : `Choose ${verb} (or Both) in Setup first.`,
    setup('role', 'Choose the role'),
  );
}

/** GPUs matter only when the panel runs the serve itself; an external serve brings its own. */
export function hardwareCheck(f: PreflightFacts): PreflightCheck {
  const title = 'Hardware';
  if (f.settings.mining.runtime === 'external') return check('hardware', title, 'ok', 'An external serve brings its own GPUs: this machine needs none.');
  const hw = f.hardware;
  if (!hw) return check('hardware', title, 'unknown', 'The hardware check is still running.', setup('hardware', 'Open the hardware check'));
  if (!hw.plan || hw.verdict === 'unsupported') {
    const why = hw.reasons.find((r) => r.severity === 'blocker')?.text ?? 'No serve plan fits these GPUs.';
    return check('hardware', title, 'blocked', why, setup('hardware', 'See what works'));
  }
  const cards = hw.plan.engines.flatMap((e) => e.gpuIndices).length;
  return check('hardware', title, 'ok', `${cards} GPU(s) in ${hw.plan.engines.length} engine(s), declaring ${hw.plan.maxInflight} concurrent requests (${hw.verdict.replace(/-/g, ' ')}).`);
}

export function runtimeCheck(f: PreflightFacts): PreflightCheck {
  const title = 'Serve runtime';
  const m = f.settings.mining;
  const fix = setup('serve', 'Choose the runtime');
  if (m.runtime === null) return check('runtime', title, 'blocked', 'Pick how sglang runs: Python, Docker, or a serve you already run.', fix);
  if (m.runtime === 'external') {
    return m.externalServeUrls.length > 0
      ? check('runtime', title, 'ok', `The panel watches your serve at ${m.externalServeUrls.join(', ')}.`)
      : check('runtime', title, 'blocked', 'Give the URL of the sglang serve you run (e.g. http://127.0.0.1:30000).', settingsFix('externalServeUrls', 'Add the serve URL'));
  }
  const r = f.runtimes;
  if (!r) return check('runtime', title, 'unknown', 'Looking for sglang on this machine.', fix);
  if (m.runtime === 'python') {
    if (!r.python) return check('runtime', title, 'blocked', `sglang was not found: ${r.notes.find((n) => /python/i.test(n)) ?? 'no Python here has it.'}`, setup('serve', 'Install or choose sglang'));
    return check('runtime', title, 'ok', `sglang ${r.python.sglangVersion} found with ${r.python.python}${r.python.supported ? '' : ' (a version the trim does not know: answers will be larger)'}.`);
  }
  if (!r.docker.available) return check('runtime', title, 'blocked', r.docker.problem ?? 'Docker is not available here.', fix);
  return check(
    'runtime',
    title,
    'ok',
    `Docker ${r.docker.serverVersion ?? ''} runs ${r.docker.image}${r.docker.imagePresent ? ' (image present)' : ' (pulled on first start, about 20 GB)'}.`.replace('  ', ' '),
  );
}

export function checkpointCheck(f: PreflightFacts): PreflightCheck {
  const title = 'Checkpoint';
  const c = f.checkpoint;
  const fix = setup('serve', 'Open the checkpoint');
  if (!c) return check('checkpoint', title, 'unknown', 'The checkpoint folder is still being checked.', fix);
  switch (c.state) {
    case 'complete':
      return check('checkpoint', title, 'ok', `Present and verified at ${c.dir}${c.identity ? ` (identity ${c.identity.slice(0, 12)}…)` : ''}.`);
    case 'downloading':
    case 'listing':
    case 'verifying': {
      const p = c.progress;
      const pct = p && p.bytesTotal > 0 ? ` ${Math.floor((p.bytesDone / p.bytesTotal) * 100)} %` : '';
      return check('checkpoint', title, 'blocked', `Still ${c.state}${pct}: mining can start once it is complete.`, fix);
    }
    case 'failed':
      return check('checkpoint', title, 'blocked', `The download failed: ${c.error ?? 'unknown error'}. Resume it, or point to a complete copy.`, fix);
    case 'absent':
    case 'incomplete':
      return check(
        'checkpoint',
        title,
        'blocked',
        `${c.state === 'absent' ? 'No checkpoint' : `Incomplete (${c.missing.length} file(s) missing)`} at ${c.dir}: download it, or point to a complete copy.`,
        fix,
      );
  }
}

/** Space for what is still to download: the same folder verdict the hardware panel and Settings show. */
export function diskCheck(f: PreflightFacts): PreflightCheck {
  const title = 'Disk space';
  if (f.checkpoint?.state === 'complete') return check('disk', title, 'ok', 'Nothing left to download.');
  if (!f.disk) return check('disk', title, 'unknown', 'The free space where the checkpoint goes is not measured yet.', settingsFix('checkpointDir', 'Choose the checkpoint folder'));
  if (!f.disk.ok) return check('disk', title, 'blocked', f.disk.sentence, settingsFix('checkpointDir', 'Choose another folder'));
  return check('disk', title, 'ok', f.disk.sentence);
}

export function hotkeyCheck(f: PreflightFacts): PreflightCheck {
  const w = f.settings.wallet;
  const fix = setup('hotkey', 'Choose a hotkey');
  if (!w.name || !w.hotkey) return check('hotkey', 'Hotkey', 'blocked', 'Choose a btcli wallet hotkey, or create one.', fix);
  if (!f.hotkeyAddress)
    return check('hotkey', 'Hotkey', 'blocked', `${w.name}/${w.hotkey} could not be read${f.hotkeyProblem ? `: ${f.hotkeyProblem}` : ''}. Choose another hotkey or import it again.`, fix);
  return check('hotkey', 'Hotkey', 'ok', `${w.name}/${w.hotkey} (${f.hotkeyAddress}).`);
}

/** Registration is on chain state: unknown until checked for this very hotkey. */
export function registrationCheck(f: PreflightFacts): PreflightCheck {
  const title = 'Registration';
  const fix = setup('registration', 'Open registration');
  const netuid = f.settings.validating.netuid;
  if (!f.hotkeyAddress) return check('registration', title, 'blocked', 'Choose a hotkey first: registration is checked for it.', setup('hotkey', 'Choose a hotkey'));
  const r = f.registration;
  if (!r || r.registration.hotkey !== f.hotkeyAddress) {
    if (f.registrationError) return { ...check('registration', title, 'unknown', `Could not be checked: ${f.registrationError}`, settingsFix('chainUrl', 'Check the chain endpoint')), failed: true };
    return check('registration', title, 'unknown', `Not checked yet for this hotkey on subnet ${netuid}: the chain is asked in the background, and again at Start once nothing else blocks.`, fix);
  }
  if (!r.registration.registered) return check('registration', title, 'blocked', `The hotkey is not registered on subnet ${netuid}: register it (it costs the current burn).`, fix);
  return check('registration', title, 'ok', `Registered as uid ${r.registration.uid} on subnet ${netuid}.`);
}

/** The validator sets weights only with a permit: the chain refuses them otherwise. */
export function permitCheck(f: PreflightFacts): PreflightCheck | null {
  const r = f.registration;
  if (!r || !r.registration.registered || r.registration.hotkey !== f.hotkeyAddress) return null;
  return r.registration.validatorPermit
    ? check('permit', 'Validator permit', 'ok', 'The hotkey holds a validator permit.')
    : check(
        'permit',
        'Validator permit',
        'blocked',
        'The hotkey has no validator permit yet: the chain refuses its weights. Stake to it until it is among the permitted validators.',
        setup('registration', 'Open registration'),
      );
}

/**
 * A stored key is not enough: the gateway's own answer to one HELLO decides. A denied key blocks with the
 * gateway's reason; a gateway that could not be asked leaves the check unknown (the miner retries it).
 */
export function minerKeyCheck(f: PreflightFacts): PreflightCheck {
  const k = f.minerKey;
  if (!k.present) return check('minerkey', 'Miner key', 'blocked', `Paste the miner key issued at ${PROVIDER_HOST} for this hotkey.`, setup('minerkey', 'Add the miner key'));
  const v = f.minerKeyVerification ?? null;
  // A verdict about another key (replaced since) says nothing about this one.
  const current = v !== null && v.masked === (k.masked ?? null) ? v : null;
  if (current?.state === 'denied') {
    return check(
      'minerkey',
      'Miner key',
      'blocked',
      `The gateway refused this key${current.reason ? `: ${current.reason}` : ''}. Paste the key issued for this hotkey.`,
      setup('minerkey', 'Replace the miner key'),
    );
  }
  if (current?.state === 'admitted') return check('minerkey', 'Miner key', 'ok', `Stored (${k.masked ?? 'masked'}) and admitted by the gateway.`);
  if (current?.state === 'unreachable')
    return check('minerkey', 'Miner key', 'ok', `Stored (${k.masked ?? 'masked'}); the gateway could not be asked (${current.reason ?? 'no answer'}), so it checks the key when the miner connects.`);
  return check('minerkey', 'Miner key', 'ok', `Stored (${k.masked ?? 'masked'}); the gateway checks it when the miner connects.`);
}

export function mineChecks(f: PreflightFacts): PreflightCheck[] {
  return [roleCheck(f, 'mine'), hardwareCheck(f), runtimeCheck(f), checkpointCheck(f), diskCheck(f), hotkeyCheck(f), registrationCheck(f), minerKeyCheck(f)];
}

export function validateChecks(f: PreflightFacts): PreflightCheck[] {
  return [roleCheck(f, 'validate'), hotkeyCheck(f), registrationCheck(f), permitCheck(f)].filter((c): c is PreflightCheck => c !== null);
}

export function report(role: 'mine' | 'validate', checks: PreflightCheck[], at: number): PreflightReport {
  return { role, at, checks, ready: checks.every((c) => c.state === 'ok') };
}
