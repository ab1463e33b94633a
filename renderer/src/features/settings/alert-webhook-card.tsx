// Where new alerts are also posted, for a rig nobody looks at. The URL is a credential: it is typed into a
// masked field, sent once, and never shown again (the engine keeps it; the page sees only the host).
import { useState } from 'react';
import type { AlertWebhookStatus } from '../../../../shared/notifications.ts';
import { clock } from '../common/format.ts';
import { SecretInput } from '../common/secret-input.tsx';
import { ActionError, useAction } from '../common/use-action.tsx';

export function AlertWebhookCard({ status }: { status: AlertWebhookStatus | undefined }) {
  const [url, setUrl] = useState('');
  const { invoke, error, busy } = useAction();
  const save = async (next: string | null) => {
    const r = await invoke('alerts.setWebhook', { url: next });
    if (r.ok) setUrl('');
  };
  const last = status?.lastDelivery ?? null;
  return (
    <div className="stack" data-testid="alert-webhook">
      <h3>Send alerts to a chat</h3>
      <p className="muted small">Each new alert is also posted to a webhook: a Slack, Discord, Mattermost or Google Chat incoming webhook, or your own relay. The message names this rig.</p>
      <p className="small" data-testid="alert-webhook-status">
        {status?.configured ? `Posting to ${status.host}.` : 'No webhook: alerts show here and on the desktop only.'}
        {last ? ` Last post ${clock(last.at)}: ${last.ok ? '' : 'failed, '}${last.text}.` : ''}
      </p>
      <div className="row">
        <SecretInput label="Webhook URL" placeholder={status?.configured ? 'Paste a new URL to replace it' : 'https://hooks.slack.com/services/…'} value={url} onChange={setUrl} wide />
        <button className="btn" disabled={busy || url.trim() === ''} onClick={() => void save(url)}>
          Save
        </button>
        <button className="btn" disabled={busy || !status?.configured} onClick={() => void invoke('alerts.testWebhook', null)}>
          Send a test
        </button>
        <button className="btn" disabled={busy || !status?.configured} onClick={() => void save(null)}>
          Remove
        </button>
      </div>
      <ActionError error={error} />
    </div>
  );
}
