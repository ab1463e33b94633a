// Settings in a browser on the headless engine shows no desktop-only switches (they would do nothing there);
// the desktop app shows all four.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { defaultSettings } from '../../../shared/settings.ts';
import { DesktopToggles } from '../../../renderer/src/features/settings/settings-page.tsx';

describe('desktop-only settings', () => {
  it('a browser gets a sentence and no checkbox; the desktop app gets the four toggles', () => {
    const browser = renderToStaticMarkup(<DesktopToggles s={defaultSettings()} desktop={false} update={() => undefined} />);
    expect(browser).not.toContain('type="checkbox"');
    expect(browser).toContain('settings of the desktop app');
    const app = renderToStaticMarkup(<DesktopToggles s={defaultSettings()} desktop={true} update={() => undefined} />);
    expect(app.match(/type="checkbox"/g)).toHaveLength(4);
    expect(app).toContain('Minimise to the tray');
  });
});
