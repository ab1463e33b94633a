import { useEffect, useState, type ReactNode } from 'react';
import { diskShort } from './hardware-words.ts';
import { registrationDetail } from './registration-words.ts';
import type { HardwareReport } from '../../../../shared/hardware.ts';
import type { Role } from '../../../../shared/settings.ts';
import { useSnapshot } from '../../stores/engine-store.ts';
import { ActionError, useAction } from '../common/use-action.tsx';
import { useUi } from '../../stores/ui-store.ts';
import { HardwarePanel } from '../hardware/hardware-panel.tsx';
import { HardwareChoices, tooSmall } from '../hardware/hardware-choices.tsx';
import { SecretWordsDialog, type SecretWords } from '../common/secret-words-dialog.tsx';
import { ColdkeyStep, FaucetStep, HotkeyStep, MinerKeyStep, currentRegistration, selectedHotkeyAddress, selectedWallet, type ShowWords } from './wallet-steps.tsx';
import { RegistrationStep } from './registration-step.tsx';
import { minerKeyStage } from './miner-key-words.ts';
import { ServeStep, runtimeReady } from './serve-step.tsx';
import { ChoiceGroup, type Choice } from '../common/choice-group.tsx';

const ROLES: Choice<Role>[] = [
  { id: 'mine', title: 'Mine', text: 'Serve verified inference on your NVIDIA GPUs and earn per epoch.' },
  { id: 'validate', title: 'Validate', text: 'Run the light validator: CPU only, puts the verified weights on chain every ~120 blocks.' },
  { id: 'both', title: 'Both', text: 'Mine on the GPUs and validate on the same machine.' },
];

type StageState = 'done' | 'current' | 'blocked' | 'todo';

interface Stage {
  id: string;
  title: string;
  state: StageState;
  detail: string;
  body?: ReactNode;
}

function RolePicker({ role }: { role: Role | null }) {
  const { invoke, error } = useAction();
  const pick = (r: Role) => void invoke('settings.update', { role: r });
  return (
    <>
      <ChoiceGroup label="Role" choices={ROLES} picked={role} onPick={pick} />
      <ActionError error={error} />
    </>
  );
}

/** The first stage not done is the current one; after a blocked stage nothing is current (it cannot be reached). */
export function withCurrent<S extends { state: StageState }>(stages: S[]): S[] {
  let found = false;
  return stages.map((s) => {
    if (s.state === 'done') return s;
    if (s.state === 'blocked') {
      found = true;
      return s;
    }
    if (!found) {
      found = true;
      return { ...s, state: 'current' };
    }
    return s;
  });
}

/** The hardware verdict in words (the panel below gives the reasons). */
function verdictWords(hw: HardwareReport): string {
  if (diskShort(hw)) return 'The GPUs can mine, but the disk cannot hold the checkpoint yet: free space or choose another folder (below).';
  return hw.verdict === 'ready' ? 'Ready to mine.' : hw.verdict === 'ready-with-limits' ? 'Ready, with limits (below).' : 'Cannot mine on this hardware.';
}

export function SetupPage() {
  const settings = useSnapshot('settings');
  const hw = useSnapshot('hardware');
  const wallet = useSnapshot('wallet');
  const checkpoint = useSnapshot('checkpoint');
  const miners = useSnapshot('miners');
  const validator = useSnapshot('validator');
  const sglang = useSnapshot('sglang');
  const go = useUi((s) => s.go);
  const [open, setOpen] = useState<string | null>(null);
  // The words of a key just created, until the user confirms writing them down. Component state only.
  const [words, setWords] = useState<{ secret: SecretWords; after: () => Promise<unknown> } | null>(null);
  const showWords: ShowWords = (secret, after) => setWords({ secret, after });
  // An offloaded plan mines too slowly to qualify: the user says "anyway" before the next step opens.
  const [slowAccepted, setSlowAccepted] = useState(false);
  // Registration is checked by itself whenever the chosen hotkey changes, not only when someone presses a button.
  const walletName = settings?.wallet.name ?? null;
  const hotkeyName = settings?.wallet.hotkey ?? null;
  const hotkeyAddress = wallet && settings ? selectedHotkeyAddress(wallet, settings) : null;
  const { invoke: checkRegistration, error: registrationError } = useAction();
  useEffect(() => {
    if (walletName && hotkeyName && hotkeyAddress) void checkRegistration('wallet.registration', null);
  }, [walletName, hotkeyName, hotkeyAddress, checkRegistration]);
  // On the simulated network the engine asks its chain for a faucet (and the chosen coldkey's balance) whenever
  // the coldkey changes; the faucet step shows only if the engine answers that one exists.
  const simulated = settings?.network === 'simulated';
  const coldAddress = wallet && settings ? (selectedWallet(wallet, settings)?.coldkeyAddress ?? null) : null;
  const { invoke: checkFaucet } = useAction();
  useEffect(() => {
    if (simulated) void checkFaucet('wallet.faucet', null);
  }, [simulated, coldAddress, checkFaucet]);

  if (!settings)
    return (
      <div className="card" aria-busy="true">
        Loading the setup from the engine…
      </div>
    );
  const role = settings.role;
  const mining = role === 'mine' || role === 'both';
  const validating = role === 'validate' || role === 'both';
  const miningRuns = (miners ?? []).some((m) => m.phase !== 'stopped');
  const validatorRuns = validator?.status === 'running' || validator?.status === 'starting';
  const external = settings.mining.runtime === 'external';
  const hotkeyChosen = Boolean(settings.wallet.name && settings.wallet.hotkey);
  const reg = wallet ? currentRegistration(wallet, settings) : null;
  const cold = wallet ? selectedWallet(wallet, settings) : null;
  // A rig that mines right now is not "blocked", whatever a fresh check says; an external serve needs no local GPU.
  const hwBlocked = mining && !miningRuns && !external && hw?.verdict === 'unsupported';
  const hwSlow = mining && !miningRuns && !external && hw !== undefined && hw !== null && !hwBlocked && tooSmall(hw) && !slowAccepted;
  const serveReady = runtimeReady(settings, sglang?.runtimes) && checkpoint?.state === 'complete';
  const runs = (mining && miningRuns) || (validating && !mining && validatorRuns);

  const stages: Stage[] = withCurrent<Stage>([
    {
      id: 'role',
      title: 'Role',
      state: role ? 'done' : 'todo',
      detail: role ? `This machine will ${role === 'both' ? 'mine and validate' : role}.` : 'Choose what this machine does.',
      body: <RolePicker role={role} />,
    },
    // Before a role is chosen the hardware verdict helps choose it; a validator needs no GPU, so no step.
    ...(role === null
      ? [
          {
            id: 'hardware',
            title: 'Hardware check',
            state: 'todo' as const,
            detail: !hw ? 'Checking…' : hw.verdict === 'unsupported' ? 'This machine cannot mine: it can validate.' : `${verdictWords(hw)} It can mine.`,
            body: <HardwarePanel />,
          },
        ]
      : []),
    ...(mining
      ? [
          {
            id: 'hardware',
            title: 'Hardware check',
            // A disk that cannot hold the checkpoint is not "done", whatever the GPUs say (the sentence says so too).
            state: miningRuns || external ? ('done' as const) : !hw || hwSlow || diskShort(hw) ? ('todo' as const) : hwBlocked ? ('blocked' as const) : ('done' as const),
            detail: miningRuns
              ? 'Mining runs on this hardware.'
              : external
                ? 'Your own serve does the GPU work; this machine only relays.'
                : !hw
                  ? 'Checking…'
                  : hwBlocked
                    ? 'This machine cannot mine: see why below, validate instead, or see what hardware works.'
                    : hwSlow
                      ? 'Only with weights offloaded to RAM: too slow to qualify. Validate instead, see what works, or mine anyway.'
                      : verdictWords(hw),
            body: (
              <div className="stack">
                {hw && !miningRuns && !external && tooSmall(hw) && <HardwareChoices report={hw} onMineAnyway={hwBlocked || slowAccepted ? null : () => setSlowAccepted(true)} />}
                <HardwarePanel />
              </div>
            ),
          },
          {
            id: 'serve',
            title: 'Serve runtime and checkpoint',
            state: serveReady || miningRuns ? ('done' as const) : ('todo' as const),
            detail: serveReady
              ? `Runtime: ${settings.mining.runtime}; checkpoint complete.`
              : settings.mining.runtime === null
                ? 'Pick how sglang runs: Python, Docker, or a serve you already run.'
                : !runtimeReady(settings, sglang?.runtimes)
                  ? settings.mining.runtime === 'external'
                    ? 'Give the URL of your serve.'
                    : `sglang is not ready for ${settings.mining.runtime} yet: install it or pick another runtime.`
                  : `The checkpoint is ${checkpoint?.state ?? 'not checked yet'}: download it or point to your copy.`,
            body: <ServeStep settings={settings} downloadAllowed={!hwBlocked} />,
          },
        ]
      : []),
    {
      id: 'coldkey',
      title: 'Coldkey',
      state: cold?.coldkeyAddress || reg?.registration.registered ? 'done' : 'todo',
      detail: cold?.coldkeyAddress
        ? `Wallet ${cold.name}: ${cold.coldkeyAddress}`
        : reg?.registration.registered
          ? 'Not needed: the hotkey is registered already.'
          : 'Create, import, or name the browser-wallet account that owns your hotkey and pays the registration.',
      body: wallet ? <ColdkeyStep wallet={wallet} settings={settings} showWords={showWords} /> : null,
    },
    ...(wallet?.faucet
      ? [
          {
            id: 'faucet',
            title: 'Test τ (simulated network faucet)',
            state: wallet.faucet.enough || reg?.registration.registered ? ('done' as const) : ('todo' as const),
            detail: wallet.faucet.enough
              ? `The coldkey holds ${wallet.faucet.balanceTao}: enough for registration (${wallet.faucet.burnTao} burn plus fees).`
              : reg?.registration.registered
                ? 'Not needed: the hotkey is registered already.'
                : `Simulated network only: fund the coldkey with ${wallet.faucet.dripTao} of test τ in one click.`,
            body: <FaucetStep faucet={wallet.faucet} />,
          },
        ]
      : []),
    {
      id: 'hotkey',
      title: 'Hotkey',
      state: hotkeyChosen ? 'done' : 'todo',
      detail: hotkeyChosen ? `${settings.wallet.name}/${settings.wallet.hotkey}` : 'Choose a hotkey on this machine, or create one.',
      body: wallet ? <HotkeyStep wallet={wallet} settings={settings} showWords={showWords} /> : null,
    },
    {
      id: 'registration',
      title: 'Registration',
      state: reg?.registration.registered ? 'done' : 'todo',
      detail: registrationDetail({ reg, hotkeyChosen, registrationError: wallet?.registrationError, netuid: settings.validating.netuid, validating }),
      body: wallet ? <RegistrationStep wallet={wallet} settings={settings} /> : null,
    },
    ...(mining && wallet
      ? [
          {
            id: 'minerkey',
            title: 'Miner key',
            ...minerKeyStage(wallet, reg?.registration ?? null, hotkeyChosen ? `${settings.wallet.name}/${settings.wallet.hotkey}` : null),
            body: <MinerKeyStep wallet={wallet} />,
          },
        ]
      : []),
    {
      id: 'start',
      title: mining ? 'Start mining' : 'Start validating',
      state: runs ? 'done' : 'todo',
      detail: runs
        ? mining
          ? 'Mining runs: the Mine page shows it live.'
          : 'The validator runs: the Validate page shows it live.'
        : `One click on the ${mining && validating ? 'Mine and Validate pages' : mining ? 'Mine page' : 'Validate page'} once the steps above are done.`,
      body: (
        <div className="row">
          {mining && (
            <button className="btn primary big" onClick={() => go('mine')}>
              Go to Mine
            </button>
          )}
          {validating && (
            <button className={`btn big ${mining ? '' : 'primary'}`} onClick={() => go('validate')}>
              Go to Validate
            </button>
          )}
        </div>
      ),
    },
  ]);
  const current = stages.find((s) => s.state === 'current' || s.state === 'blocked');
  const expanded = open ?? current?.id ?? null;
  const confirmWords = () => {
    const w = words;
    setWords(null);
    if (w) void w.after();
  };
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>Setup</h1>
          <p>Each step says what it needs and what to do next. You can leave and come back: progress is kept.</p>
        </div>
      </div>
      <ActionError error={registrationError} />
      <ol className="stages" aria-label="Setup steps">
        {stages.map((s, i) => (
          <li key={s.id} className={`stage ${s.state}`} style={{ gridTemplateColumns: '30px minmax(0, 1fr) auto', alignItems: 'start' }} data-testid={`stage-${s.id}`}>
            <span className="num">{s.state === 'done' ? '✓' : s.state === 'blocked' ? '!' : i + 1}</span>
            <div className="stack" style={{ gap: 8, minWidth: 0 }}>
              <button className="nav-item stage-toggle" style={{ padding: 0, color: 'var(--text)' }} aria-expanded={expanded === s.id} onClick={() => setOpen(expanded === s.id ? '' : s.id)}>
                <span style={{ minWidth: 0 }}>
                  <b>{s.title}</b>
                  <span className="muted small stage-detail">{s.detail}</span>
                </span>
              </button>
              {expanded === s.id && s.body}
            </div>
            <span className={`badge ${s.state === 'done' ? 'ok' : s.state === 'blocked' ? 'bad' : s.state === 'current' ? 'info' : 'neutral'}`}>{s.state === 'todo' ? 'to do' : s.state}</span>
          </li>
        ))}
      </ol>
      {words && <SecretWordsDialog secret={words.secret} onConfirmed={confirmWords} />}
    </div>
  );
}
