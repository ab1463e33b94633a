// Every secret field is masked and kept away from autofill and spell-check services.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { SecretInput } from '../../../renderer/src/features/common/secret-input.tsx';

/** The attributes of the one element rendered, by lower-cased name. */
function attributes(html: string): Record<string, string> {
  return Object.fromEntries([...html.matchAll(/([A-Za-z-]+)="([^"]*)"/g)].map((m) => [m[1]!.toLowerCase(), m[2]!]));
}

describe('secret input', () => {
  it('is a password field, not autofilled or spell-checked, labelled for screen readers', () => {
    const html = renderToStaticMarkup(<SecretInput label="Miner key" value="" onChange={() => undefined} wide />);
    expect(attributes(html)).toEqual({ type: 'password', 'aria-label': 'Miner key', placeholder: 'Miner key', value: '', autocomplete: 'off', spellcheck: 'false', style: 'flex:1;min-width:240px' });
  });

  it('lets a password manager offer to save a password being chosen', () => {
    const html = renderToStaticMarkup(<SecretInput label="New coldkey password" placeholder="Password (8+ characters)" value="" onChange={() => undefined} newPassword />);
    expect(attributes(html)).toEqual({ type: 'password', 'aria-label': 'New coldkey password', placeholder: 'Password (8+ characters)', value: '', autocomplete: 'new-password', spellcheck: 'false' });
  });
});
