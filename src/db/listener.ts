/**
 * A dedicated connection that LISTENs on one channel and outlives database outages: a lost
 * connection is opened again with back-off (500 ms doubling to 30 s), and so is every attempt
 * that fails meanwhile, until the listener is closed. Ward's two listeners (auth changes for the
 * principal cache, restart requests) differ only in how they connect and in what they do with a
 * notification and with the connection going down or coming back.
 */
import type pg from 'pg';

const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;

export interface ListenOptions {
  channel: string;
  /** A new, connected client of its own (LISTEN state must never reach a pooled connection). */
  open: () => Promise<pg.Client>;
  /** Closes a client `open` returned; failures are ignored. */
  release: (client: pg.Client) => Promise<void>;
  onNotification: (payload: string) => void;
  /** LISTEN is active (again). */
  onUp?: () => void;
  /** The connection, or an attempt to open it, failed; the next attempt comes in `retryInMs`. */
  onDown?: (error: unknown, retryInMs: number) => void;
}

export interface Listener {
  /** Resolves once LISTEN is first active, or rejects with the first failure (the listener keeps trying). */
  ready: Promise<void>;
  close(): Promise<void>;
}

export function listen(options: ListenOptions): Listener {
  let connection: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let delay = RETRY_MIN_MS;
  let settle: { resolve: () => void; reject: (error: unknown) => void } | null = null;
  const ready = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
  // Nobody needs to await `ready`; an unobserved rejection must not crash the process.
  ready.catch(() => undefined);
  const release = (client: pg.Client) => void options.release(client).catch(() => undefined);

  const down = (error: unknown) => {
    if (connection !== null) release(connection);
    connection = null;
    if (closed) return;
    options.onDown?.(error, delay);
    settle?.reject(error);
    settle = null;
    retry = setTimeout(() => void connect(), delay);
    delay = Math.min(delay * 2, RETRY_MAX_MS);
  };

  const connect = async (): Promise<void> => {
    let candidate: pg.Client | null = null;
    try {
      candidate = await options.open();
      if (closed) return release(candidate);
      const current = candidate;
      current.on('notification', (message) => {
        if (message.channel === options.channel) options.onNotification(message.payload ?? '');
      });
      // Errors before LISTEN succeeds are the catch block's; after, the connection is `current`.
      current.on('error', (error) => current === connection && down(error));
      current.on('end', () => current === connection && down(new Error('connection ended')));
      await current.query(`LISTEN ${options.channel}`);
      if (closed) return release(current);
      connection = current;
      delay = RETRY_MIN_MS;
      options.onUp?.();
      settle?.resolve();
      settle = null;
    } catch (error) {
      if (candidate !== null) release(candidate);
      down(error);
    }
  };

  void connect();
  return {
    ready,
    async close() {
      closed = true;
      clearTimeout(retry);
      const open = connection;
      connection = null;
      if (open !== null) await options.release(open).catch(() => undefined);
    },
  };
}
