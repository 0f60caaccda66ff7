/**
 * The IPC between `ward serve`'s supervisor (src/server/supervisor.ts) and the backends it starts:
 * the messages each side sends, and the exit status that tells the supervisor not to try again.
 */

/** What a backend started by the supervisor tells it: it serves (back-off counts from here). */
export type FromBackend = { ward: 'serving' };
/** What the supervisor tells a backend: restart, if the next start would not refuse (`ward serve --watch`). */
export type ToBackend = { ward: 'restart' };

/**
 * A backend's exit status that no restart can help: its address is taken (another `ward serve`, or
 * anything else, listens there). The supervisor stops instead of starting it again and again.
 */
export const EXIT_ADDRESS_TAKEN = 78;

export const isWardMessage = (message: unknown, kind: string): boolean =>
  typeof message === 'object' && message !== null && (message as { ward?: unknown }).ward === kind;
