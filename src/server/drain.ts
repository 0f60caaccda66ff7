/**
 * What a graceful stop needs beyond `server.close()`, which closes only the connections idle at
 * that instant: a client that keeps its connection alive and busy (a load balancer, a probe) would
 * otherwise be served until the grace period ends, and the stop would wait all of it.
 */
import type { RequestListener, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface Drainable {
  /** The server's one request listener: `listener`, after noting each connection's latest answer. */
  listener: RequestListener;
  /**
   * From now on every answer whose headers are not out yet says `Connection: close` (Node closes
   * the connection once that answer is written out), and a connection whose answer already
   * promised keep-alive is closed once that answer has been handed to the kernel, never before:
   * a large body to a slow client arrives whole.
   */
  drain(server: Server): void;
}

/**
 * Wraps `listener` rather than listening beside it: a second `request` listener made Node copy the
 * listener list on every request, and it ran after the handler, which may have sent its headers
 * by then. Kept per connection rather than per answer: a listener on every answer cost every
 * request of a busy server a few percent of its time, and a connection serves one answer at a time.
 */
export function drainable(listener: RequestListener): Drainable {
  let draining = false;
  const latest = new Map<Socket, ServerResponse>();
  return {
    listener: (request, response) => {
      if (draining) response.setHeader('Connection', 'close');
      else {
        const { socket } = request;
        if (!latest.has(socket)) socket.once('close', () => latest.delete(socket));
        latest.set(socket, response);
      }
      listener(request, response);
    },
    drain(server) {
      draining = true;
      for (const response of latest.values()) {
        if (response.writableFinished || response.destroyed) continue;
        if (!response.headersSent) response.setHeader('Connection', 'close');
        else response.once('finish', () => server.closeIdleConnections());
      }
    },
  };
}
