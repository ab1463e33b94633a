// The composed engine posts each new alert to the webhook set through the contract, and keeps the URL
// across a restart (the secrets folder), without ever putting it in the notifications topic.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { composeEngine } from '../../../electron/compose.ts';
import { tempDirs } from '../../helpers/temp-dirs.ts';

const fresh = tempDirs('engy-webhook-engine-');

describe('alert webhook in the engine', () => {
  it('posts a new alert, once, and remembers the webhook across a restart', async () => {
    const bodies: Array<{ title: string; rig: string }> = [];
    const server = createServer((req, res) => {
      let b = '';
      req.on('data', (d: Buffer) => (b += d.toString()));
      req.on('end', () => {
        bodies.push(JSON.parse(b) as { title: string; rig: string });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/token-abc`;
    const dataDir = fresh();
    try {
      const engine = await composeEngine({ dataDir, shell: 'headless' });
      try {
        const set = await engine.table['alerts.setWebhook']({ url });
        expect(set).toMatchObject({ configured: true, lastDelivery: null });
        const alert = { key: 'x', kind: 'miner-offline' as const, severity: 'error' as const, title: 'The miner is offline', body: 'Test body.' };
        engine.notifications.update('test', [alert]);
        engine.notifications.update('test', [alert]); // still ongoing: not a new alert, not posted again
        await expect.poll(() => bodies.length, { timeout: 20_000 }).toBe(1);
        expect(bodies[0]!.title).toBe('The miner is offline');
        const topic = engine.hub.current().find((e) => e.topic === 'notifications');
        expect(topic?.data).toMatchObject({ webhook: { configured: true } });
        expect(JSON.stringify(topic)).not.toContain('token-abc');
      } finally {
        await engine.dispose();
      }
      const again = await composeEngine({ dataDir, shell: 'headless' });
      try {
        expect(await again.table['alerts.testWebhook'](null)).toMatchObject({ configured: true, lastDelivery: { ok: true } });
        expect(bodies.map((b) => b.title)).toEqual(['The miner is offline', 'Test alert']);
      } finally {
        await again.dispose();
      }
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
