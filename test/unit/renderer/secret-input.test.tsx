// Every secret field is masked and kept away from autofill and spell-check services.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { SecretInput } from '../../../renderer/src/features/common/secret-input.tsx';

describe('secret input', () => {
  it('is a password field, not autofilled or spell-checked, labelled for screen readers', () => {
    const html = renderToStaticMarkup(<SecretInput label="Miner key" value="" onChange={() => undefined} wide />);
    expect(html).toContain('type="password"');
    expect(html).toContain('aria-label="Miner key"');
    expect(html).toContain('placeholder="Miner key"');
    expect(html).toContain('autoComplete="off"');
    expect(html).toContain('spellCheck="false"');
    expect(html).toContain('flex:1');
  });

  it('lets a password manager offer to save a password being chosen', () => {
    const html = renderToStaticMarkup(<SecretInput label="New coldkey password" placeholder="Password (8+ characters)" value="" onChange={() => undefined} newPassword />);
    expect(html).toContain('autoComplete="new-password"');
    expect(html).toContain('placeholder="Password (8+ characters)"');
    expect(html).not.toContain('style=');
  });
});
