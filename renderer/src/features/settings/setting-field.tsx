// One operational setting: typed, checked as you type with the same schema the engine applies,
// saved with a sentence when refused, and reset to its default with one click.
import { useEffect, useState, type ReactNode } from 'react';
import * as v from 'valibot';
import type { SettingsFieldId } from '../../../../shared/preflight.ts';
import { settingsFields, type NetworkProfile, type SettingsPatch } from '../../../../shared/settings.ts';
import { engineApi } from '../../stores/engine-store.ts';

type FieldPath = keyof ReturnType<typeof settingsFields>;

/** The schema's sentence for a value, or null when it is allowed. */
export function problemWith(path: FieldPath, value: unknown, network: NetworkProfile): string | null {
  const r = v.safeParse(settingsFields(network)[path] as v.GenericSchema, value);
  return r.success ? null : r.issues[0].message;
}

export async function saveSetting(patch: SettingsPatch): Promise<string | null> {
  const r = await engineApi().invoke('settings.update', patch);
  return r.ok ? null : r.error.message;
}

interface TextSettingProps {
  id: SettingsFieldId;
  path: FieldPath;
  label: string;
  hint: ReactNode;
  network: NetworkProfile;
  /** The saved value as text ('' for empty). */
  saved: string;
  defaultText: string;
  placeholder?: string;
  /** Text -> the value the schema checks ('' may mean null). */
  parse: (text: string) => unknown;
  patch: (value: unknown) => SettingsPatch;
}

export function TextSetting(p: TextSettingProps) {
  const [text, setText] = useState(p.saved);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // A save elsewhere (or a fixed URL coming back) replaces what is shown.
  useEffect(() => setText(p.saved), [p.saved]);
  const value = p.parse(text);
  const problem = problemWith(p.path, value, p.network);
  const dirty = text !== p.saved;
  const save = async (next: unknown) => {
    setBusy(true);
    setError(await saveSetting(p.patch(next)));
    setBusy(false);
  };
  return (
    <div className="stack" style={{ gap: 6 }}>
      <label htmlFor={`setting-${p.id}`} className="small">
        <b>{p.label}</b> <span className="muted">{p.hint}</span>
      </label>
      <div className="row">
        <input
          id={`setting-${p.id}`}
          type="text"
          value={text}
          placeholder={p.placeholder}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && dirty && !problem) void save(value);
          }}
          aria-invalid={problem !== null}
          aria-describedby={`setting-${p.id}-msg`}
          style={{ flex: '1 1 260px', minWidth: 0 }}
          className="mono"
        />
        <button className="btn" disabled={!dirty || problem !== null || busy} onClick={() => void save(value)}>
          Save
        </button>
        <button className="btn" disabled={p.saved === p.defaultText || busy} onClick={() => void save(p.parse(p.defaultText))} title={`Default: ${p.defaultText || 'empty'}`}>
          Reset to default
        </button>
      </div>
      <div id={`setting-${p.id}-msg`} className="small" role={error || (dirty && problem) ? 'alert' : undefined} style={{ color: error || (dirty && problem) ? 'var(--bad)' : 'var(--muted)' }}>
        {error ?? (dirty && problem ? problem : dirty ? 'Not saved yet: press Save or Enter.' : null)}
      </div>
    </div>
  );
}
