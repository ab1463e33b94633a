/**
 * One input for every secret the setup takes (recovery words, seeds, passwords, the miner key): masked,
 * never autofilled or spell-checked, labelled for screen readers. `wide` lets it take the rest of a row.
 */
export function SecretInput({
  label,
  placeholder = label,
  value,
  onChange,
  wide = false,
  newPassword = false,
}: {
  label: string;
  placeholder?: string;
  value: string;
  onChange: (v: string) => void;
  wide?: boolean;
  /** A password being chosen: lets password managers offer to save it. */
  newPassword?: boolean;
}) {
  return (
    <input
      type="password"
      aria-label={label}
      placeholder={placeholder}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      autoComplete={newPassword ? 'new-password' : 'off'}
      spellCheck={false}
      style={wide ? { flex: 1, minWidth: 240 } : undefined}
    />
  );
}
