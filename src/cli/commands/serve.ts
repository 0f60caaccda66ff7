import type { AddressInfo } from 'node:net';
import { createLogger } from '../../logger.ts';
import { startBackend } from '../../server.ts';
import { WardCommand } from '../base.ts';

export default class Serve extends WardCommand {
  static override description =
    'Start the backend: bring the core schema to head, check for orphan modules, then serve HTTP on PORT (default 8080)';
  static override examples = ['<%= config.bin %> serve', 'PORT=9000 <%= config.bin %> serve'];

  async run(): Promise<void> {
    const backend = await startBackend(this.settings, createLogger());
    const { port } = backend.server.address() as AddressInfo;
    this.log(`Ward is listening on http://127.0.0.1:${port} (GET /health)`);
    await new Promise<void>((resolve) => {
      const stop = () => void backend.close().then(resolve);
      process.once('SIGTERM', stop);
      process.once('SIGINT', stop);
    });
  }
}
