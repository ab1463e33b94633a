import { useState, type ReactNode } from 'react';
import type { Role } from '../../../../shared/settings.ts';
import { engineApi, useSnapshot } from '../../stores/engine-store.ts';
import { useUi } from '../../stores/ui-store.ts';
import { HardwarePanel } from '../hardware/hardware-panel.tsx';
import { HotkeyStep, MinerKeyStep, RegistrationStep } from './wallet-steps.tsx';
import { ServeStep } from './serve-step.tsx';

const ROLES: { id: Role; title: string; text: string }[] = [
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
  const pick = (r: Role) => void engineApi().invoke('settings.update', { role: r });
  return (
    <div className="choice" role="group" aria-label="Role">
      {ROLES.map((r) => (
        <button key={r.id} aria-pressed={role === r.id} onClick={() => pick(r.id)}>
          <b>{r.title}</b>
          <span className="muted small">{r.text}</span>
        </button>
      ))}
    </div>
  );
}

/** The first stage not done is the current one; every stage says what it needs next. */
function withCurrent(stages: Stage[]): Stage[] {
  let found = false;
  return stages.map((s) => {
    if (s.state === 'done' || s.state === 'blocked') return s;
    if (!found) {
      found = true;
      return { ...s, state: 'current' };
    }
    return s;
  });
}

export function SetupPage() {
  const settings = useSnapshot('settings');
  const hw = useSnapshot('hardware');
  const wallet = useSnapshot('wallet');
  const checkpoint = useSnapshot('checkpoint');
  const go = useUi((s) => s.go);
  const [open, setOpen] = useState<string | null>(null);
  const role = settings?.role ?? null;
  const mining = role === 'mine' || role === 'both';
  const validating = role === 'validate' || role === 'both';
  const hotkeyChosen = Boolean(settings?.wallet.name && settings.wallet.hotkey);
  const reg = wallet?.registration ?? null;
  // The tokenizer and chat template come from the checkpoint folder, so even an external serve needs it here.
  const serveReady = settings ? settings.mining.runtime !== null && (settings.mining.runtime !== 'external' || settings.mining.externalServeUrls.length > 0) && checkpoint?.state === 'complete' : false;
  const stages: Stage[] = withCurrent([
    { id: 'role', title: 'Role', state: role ? 'done' : 'todo', detail: role ? `This machine will ${role === 'both' ? 'mine and validate' : role}.` : 'Choose what this machine does.', body: <RolePicker role={role} /> },
    {
      id: 'hardware',
      title: 'Hardware check',
      state: !mining ? 'done' : !hw ? 'todo' : hw.verdict === 'unsupported' ? 'blocked' : 'done',
      detail: !mining ? 'The validator needs no GPU.' : !hw ? 'Checking…' : hw.verdict === 'unsupported' ? 'This machine cannot mine: see the reasons below. You can still validate.' : `Verdict: ${hw.verdict}.`,
      body: <HardwarePanel />,
    },
    ...(mining && settings
      ? [{ id: 'serve', title: 'Serve runtime and checkpoint', state: serveReady ? ('done' as const) : ('todo' as const), detail: serveReady ? `Runtime: ${settings.mining.runtime}; checkpoint complete.` : settings.mining.runtime === null ? 'Pick how sglang runs: Python, Docker, or a serve you already run.' : `Runtime: ${settings.mining.runtime}. The checkpoint is ${checkpoint?.state ?? 'not checked yet'}: download it or point to your copy.`, body: <ServeStep settings={settings} /> }]
      : []),
    { id: 'hotkey', title: 'Hotkey', state: hotkeyChosen ? 'done' : 'todo', detail: hotkeyChosen ? `${settings!.wallet.name}/${settings!.wallet.hotkey}` : 'Choose a btcli wallet hotkey or create one.', body: wallet && settings ? <HotkeyStep wallet={wallet} settings={settings} /> : null },
    ...(mining && wallet
      ? [{ id: 'minerkey', title: 'Miner key', state: wallet.minerKey.present ? ('done' as const) : ('todo' as const), detail: wallet.minerKey.present ? `Stored (${wallet.minerKey.masked}).` : 'Paste the key issued at provider.engy.ai for your hotkey.', body: <MinerKeyStep wallet={wallet} /> }]
      : []),
    {
      id: 'registration',
      title: 'Registration',
      state: reg?.registration.registered ? 'done' : 'todo',
      detail: reg ? (reg.registration.registered ? `uid ${reg.registration.uid} on subnet ${reg.registration.netuid}${validating ? (reg.registration.validatorPermit ? ', validator permit' : ', no validator permit yet') : ''}.` : 'Not registered yet.') : 'Check the hotkey is registered on subnet 53; register if not.',
      body: wallet ? <RegistrationStep wallet={wallet} /> : null,
    },
    {
      id: 'start',
      title: mining ? 'Start mining' : 'Start validating',
      state: 'todo',
      detail: 'One click once the steps above are done.',
      body: (
        <div className="row">
          {mining && (
            <button className="btn primary big" onClick={() => go('mine')}>
              Go to Mine
            </button>
          )}
          {validating && (
            <button className="btn primary big" onClick={() => go('validate')}>
              Go to Validate
            </button>
          )}
        </div>
      ),
    },
  ]);
  const current = stages.find((s) => s.state === 'current' || s.state === 'blocked');
  const expanded = open ?? current?.id ?? null;
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>Setup</h1>
          <p>Each step says what it needs and what to do next. You can leave and come back: progress is kept.</p>
        </div>
      </div>
      <ol className="stages" aria-label="Setup steps">
        {stages.map((s, i) => (
          <li key={s.id} className={`stage ${s.state}`} style={{ gridTemplateColumns: '30px 1fr auto', alignItems: 'start' }} data-testid={`stage-${s.id}`}>
            <span className="num">{s.state === 'done' ? '✓' : s.state === 'blocked' ? '!' : i + 1}</span>
            <div className="stack" style={{ gap: 8 }}>
              <button className="nav-item" style={{ padding: 0, color: 'var(--text)' }} aria-expanded={expanded === s.id} onClick={() => setOpen(expanded === s.id ? '' : s.id)}>
                <span>
                  <b>{s.title}</b>
                  <span className="muted small" style={{ display: 'block' }}>
                    {s.detail}
                  </span>
                </span>
              </button>
              {expanded === s.id && s.body}
            </div>
            <span className={`badge ${s.state === 'done' ? 'ok' : s.state === 'blocked' ? 'bad' : s.state === 'current' ? 'info' : 'neutral'}`}>{s.state === 'todo' ? 'to do' : s.state}</span>
          </li>
        ))}
      </ol>
    </div>
  );
}
