/**
 * What a graceful stop needs beyond `server.close()`, which closes only the connections idle at
 * that instant: a client that keeps its connection alive and busy (a load balancer, a probe) would
 * otherwise be served until the grace period ends, and the stop would wait all of it.
 */
import type { Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Tracks each connection's latest answer on `server`. Once the returned function is called, every
 * answer whose headers are not out yet says `Connection: close` (Node closes the connection once
 * that answer is written out), and a connection whose answer already promised keep-alive is
 * closed once that answer has been handed to the kernel, never before: a large body to a slow
 * client arrives whole. Kept per connection rather than per answer: a listener on every answer
 * cost every request of a busy server a few percent of its time, and a connection serves one
 * answer at a time.
 */
export function drainer(server: Server): () => void {
  let draining = false;
  const latest = new Map<Socket, ServerResponse>();
  // A handler may send its headers before this listener runs (it is added after the server's own):
  // such an answer, or one already under way at the stop, closes its connection once written out.
  const closeAfter = (response: ServerResponse) => {
    if (response.writableFinished || response.destroyed) return;
    if (!response.headersSent) response.setHeader('Connection', 'close');
    else response.once('finish', () => server.closeIdleConnections());
  };
  server.on('request', (request: { socket: Socket }, response: ServerResponse) => {
    if (draining) return closeAfter(response);
    const { socket } = request;
    if (!latest.has(socket)) socket.once('close', () => latest.delete(socket));
    latest.set(socket, response);
  });
  return () => {
    draining = true;
    for (const response of latest.values()) closeAfter(response);
  };
}
