/**
 * The metrics listener: a plain HTTP server of its own, apart from the API's port, answering
 * `GET /metrics` in Prometheus's text format and nothing else. Apart so that the public port (what
 * the frontend proxy, the Ingress, or the Internet reach) never serves them, and so that a scrape
 * never waits behind the API's middleware. With a token set, a scrape must present it as a bearer
 * token; without one, where it listens (127.0.0.1 by default, or a pod's network) is the guard.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorFor } from '../api/errors.ts';
import type { MetricsSettings } from '../config/backend-settings.ts';
import type { Logger } from '../logger.ts';
import type { MetricsRegistry } from '../metrics/registry.ts';

export const METRICS_PATH = '/metrics';

export interface MetricsEndpoint {
  server: Server;
  /** `http://<host>:<port>/metrics`, the port as bound (a free one for WARD_METRICS_PORT=0). */
  url: string;
  close(): Promise<void>;
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Pure: whether an Authorization header carries `token` as a bearer token; compared in constant time. */
export function presentsToken(authorization: string | undefined, token: string): boolean {
  const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
  // Hashed first, so that the comparison's time says nothing of the token's length either.
  return match !== null && timingSafeEqual(digest(match[1] as string), digest(token));
}

function answerJson(
  response: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
) {
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
  response.end(JSON.stringify(errorFor(status, message)));
}

function handler(registry: Promise<MetricsRegistry>, token: string | null, logger: Logger) {
  return async (request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '/').split('?')[0];
    if (path !== METRICS_PATH)
      return answerJson(response, 404, `nothing at ${path}; metrics are at ${METRICS_PATH}`);
    if (request.method !== 'GET' && request.method !== 'HEAD')
      return answerJson(response, 405, `${request.method} is not allowed on ${METRICS_PATH}`, {
        Allow: 'GET, HEAD',
      });
    if (token !== null && !presentsToken(request.headers.authorization, token))
      return answerJson(
        response,
        401,
        'metrics need the bearer token set in WARD_METRICS_TOKEN (Authorization: Bearer <token>)',
        { 'WWW-Authenticate': 'Bearer realm="ward-metrics"' },
      );
    try {
      const { contentType, text: read } = await registry;
      const text = await read();
      response.writeHead(200, { 'Content-Type': contentType, 'Cache-Control': 'no-store' });
      response.end(request.method === 'HEAD' ? undefined : text);
    } catch (error) {
      logger.error({ err: error }, 'could not gather the metrics');
      answerJson(response, 500, 'could not gather the metrics; the backend log says why');
    }
  };
}

/**
 * Listens on `settings`' address; rejects with the listen error (see listenError) if it cannot.
 * `registry` may still be loading: scrapes wait for it.
 */
export async function serveMetrics(
  settings: MetricsSettings,
  registry: Promise<MetricsRegistry>,
  logger: Logger,
): Promise<MetricsEndpoint> {
  const server = createServer(handler(registry, settings.token, logger));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error) => logger.error({ err: error }, 'metrics listener failed'));
  const address = server.address() as AddressInfo;
  const host = address.address.includes(':') ? `[${address.address}]` : address.address;
  return {
    server,
    url: `http://${host}:${address.port}${METRICS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // A scraper keeps its connection alive between scrapes: it must not hold the stop up.
        server.closeAllConnections();
      }),
  };
}
