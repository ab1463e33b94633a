import type { Role } from '../../../../shared/settings.ts';
import { engineApi, useSnapshot } from '../../stores/engine-store.ts';
import { HardwarePanel } from '../hardware/hardware-panel.tsx';

const ROLES: { id: Role; title: string; text: string }[] = [
  { id: 'mine', title: 'Mine', text: 'Serve verified inference on your NVIDIA GPUs and earn per epoch.' },
  { id: 'validate', title: 'Validate', text: 'Run the light validator: CPU only, puts the verified weights on chain every ~120 blocks.' },
  { id: 'both', title: 'Both', text: 'Mine on the GPUs and validate on the same machine.' },
];

type StageState = 'done' | 'current' | 'blocked' | 'later';

interface Stage {
  title: string;
  state: StageState;
  detail: string;
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

export function SetupPage() {
  const settings = useSnapshot('settings');
  const hw = useSnapshot('hardware');
  const role = settings?.role ?? null;
  const mining = role === 'mine' || role === 'both';
  const stages: Stage[] = [
    { title: 'Role', state: role ? 'done' : 'current', detail: role ? `You chose: ${role}.` : 'Choose what this machine does.' },
    {
      title: 'Hardware check',
      state: !mining ? 'done' : !hw ? 'current' : hw.verdict === 'unsupported' ? 'blocked' : 'done',
      detail: !mining ? 'The validator needs no GPU.' : !hw ? 'Checking…' : hw.verdict === 'unsupported' ? 'This machine cannot mine: see the reasons below.' : `Verdict: ${hw.verdict}.`,
    },
    ...(mining
      ? [
          { title: 'Serve runtime', state: 'later' as const, detail: 'Pick how sglang runs: Python, Docker, or a serve you already run.' },
          { title: 'Checkpoint', state: 'later' as const, detail: 'Download Qwen3.6-35B-A3B-FP8 (~35 GB) or point to your copy.' },
        ]
      : []),
    { title: 'Hotkey', state: 'later', detail: 'Choose a btcli wallet hotkey or create one.' },
    ...(mining ? [{ title: 'Miner key', state: 'later' as const, detail: 'Paste the key issued at provider.engy.ai for your hotkey.' }] : []),
    { title: 'Registration', state: 'later', detail: 'Check the hotkey is registered on subnet 53; register if not.' },
    { title: mining ? 'Start mining' : 'Start validating', state: 'later', detail: 'One click once the steps above are done.' },
  ];
  return (
    <div className="stack">
      <div className="page-head">
        <div>
          <h1>Setup</h1>
          <p>Each step says what it needs and what to do next. You can leave and come back: progress is kept.</p>
        </div>
      </div>
      <section className="card stack" aria-label="Role">
        <h2>What should this machine do?</h2>
        <RolePicker role={role} />
      </section>
      <ol className="stages" aria-label="Setup steps">
        {stages.map((s, i) => (
          <li key={s.title} className={`stage ${s.state}`}>
            <span className="num">{s.state === 'done' ? '✓' : s.state === 'blocked' ? '!' : i + 1}</span>
            <div>
              <b>{s.title}</b>
              <div className="muted small">{s.detail}</div>
            </div>
            <span className={`badge ${s.state === 'done' ? 'ok' : s.state === 'blocked' ? 'bad' : s.state === 'current' ? 'info' : 'neutral'}`}>
              {s.state === 'later' ? 'to do' : s.state}
            </span>
          </li>
        ))}
      </ol>
      {(mining || role === null) && (
        <>
          <h2 style={{ marginTop: 8 }}>Hardware</h2>
          <HardwarePanel />
        </>
      )}
    </div>
  );
}
