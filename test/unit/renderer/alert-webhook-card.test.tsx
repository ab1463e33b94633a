// The Settings card for the alert webhook: what it says in each state, and that the URL field is a masked secret.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { AlertWebhookCard } from '../../../renderer/src/features/settings/alert-webhook-card.tsx';

const statusLine = (html: string) => /data-testid="alert-webhook-status">(.*?)<\/p>/.exec(html)?.[1]?.replace(/<!-- -->/g, '');

describe('alert webhook card', () => {
  it('says where alerts go, and how the last post went', () => {
    const none = renderToStaticMarkup(<AlertWebhookCard status={{ configured: false, host: null, lastDelivery: null }} />);
    expect(statusLine(none)).toBe('No webhook: alerts show here and on the desktop only.');
    expect(none).toContain('type="password"');
    expect(none).toMatch(/<button class="btn" disabled="">Send a test<\/button>/);
    const at = new Date(2026, 11, 3, 9, 5).getTime();
    const failed = renderToStaticMarkup(
      <AlertWebhookCard
        status={{ configured: true, host: 'discord.com', lastDelivery: { at, ok: false, text: 'discord.com answered HTTP 404: the webhook was deleted or the URL is wrong, paste it again' } }}
      />,
    );
    expect(statusLine(failed)).toMatch(/^Posting to discord\.com\. Last post .+: failed, discord\.com answered HTTP 404: the webhook was deleted or the URL is wrong, paste it again\.$/);
    expect(failed).toContain('placeholder="Paste a new URL to replace it"');
  });
});
