/**
 * What a graceful stop needs beyond `server.close()`, which closes only the connections idle at
 * that instant: a client that keeps its connection alive and busy (a load balancer, a probe) would
 * otherwise be served until the grace period ends, and the stop would wait all of it.
 */
import type { Server, ServerResponse } from 'node:http';

/**
 * Tracks the answers in progress on `server`. Once the returned function is called, every answer
 * whose headers are not out yet says `Connection: close` (Node closes the connection once that
 * answer is written out), and a connection whose answer already promised keep-alive is closed once
 * that answer has been handed to the kernel, never before: a large body to a slow client arrives
 * whole.
 */
export function drainer(server: Server): () => void {
  let draining = false;
  const answering = new Set<ServerResponse>();
  server.on('request', (_request, response: ServerResponse) => {
    if (draining) return void response.setHeader('Connection', 'close');
    answering.add(response);
    response.once('close', () => answering.delete(response));
  });
  return () => {
    draining = true;
    for (const response of answering) {
      if (!response.headersSent) response.setHeader('Connection', 'close');
      else response.once('finish', () => server.closeIdleConnections());
    }
  };
}
