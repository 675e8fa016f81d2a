import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

/**
 * LISTENs on the workers' wake channel on a dedicated connection and calls `onWake(queue)` for
 * each notification, and `onWake(null)` after every (re)connect, since a notification sent while
 * it was away is gone. Reconnects with backoff until stopped.
 */
export class WakeListener {
  private client: pg.Client | null = null;
  private stopped = false;
  private readonly running: Promise<void>;

  constructor(
    private readonly connectionString: string,
    private readonly channel: string,
    private readonly onWake: (queue: string | null) => void,
  ) {
    this.running = this.loop();
  }

  private async loop(): Promise<void> {
    for (let delay = 50; !this.stopped; delay = Math.min(delay * 2, 2000)) {
      const client = new pg.Client({ connectionString: this.connectionString, application_name: 'roundtable-workers-wake' });
      const lost = new Promise<void>((resolve) => {
        client.on('error', () => resolve());
        client.on('end', () => resolve());
      });
      client.on('notification', (message) => {
        if (message.channel === this.channel) this.onWake(message.payload ?? null);
      });
      try {
        await client.connect();
        await client.query(`LISTEN "${this.channel}"`);
      } catch {
        await client.end().catch(() => undefined);
        await sleep(delay);
        continue;
      }
      if (this.stopped) {
        await client.end().catch(() => undefined);
        return;
      }
      this.client = client;
      delay = 50;
      this.onWake(null);
      await lost;
      this.client = null;
      await client.end().catch(() => undefined);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.client?.end().catch(() => undefined);
    await this.running;
  }
}
