import type { ReactNode } from 'react';

/** One option of a ChoiceGroup: a bold title and a line saying what picking it means. */
export interface Choice<T extends string> {
  id: T;
  title: string;
  text: string;
}

/**
 * The setup's "pick one" cards (role, coldkey source, serve runtime): toggle buttons in a labelled group, the
 * picked one `aria-pressed`. `detail` adds a line under an option (e.g. whether that runtime was found).
 */
export function ChoiceGroup<T extends string>({
  label,
  choices,
  picked,
  onPick,
  detail,
  testIdPrefix,
}: {
  label: string;
  choices: readonly Choice<T>[];
  picked: T | null;
  onPick: (id: T) => void;
  detail?: (id: T) => ReactNode;
  testIdPrefix?: string;
}) {
  return (
    <div className="choice" role="group" aria-label={label}>
      {choices.map((c) => (
        <button key={c.id} aria-pressed={picked === c.id} onClick={() => onPick(c.id)} data-testid={testIdPrefix === undefined ? undefined : `${testIdPrefix}${c.id}`}>
          <b>{c.title}</b>
          <span className="muted small">{c.text}</span>
          {detail?.(c.id)}
        </button>
      ))}
    </div>
  );
}
