/** A test server listening on 127.0.0.1 at a port the system chose. */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LocalServer {
  readonly port: number;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  url(path: string): string;
  /** Drops open connections and closes the server. */
  close(): Promise<void>;
}

export async function listenLocal(server: Server): Promise<LocalServer> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    port,
    origin,
    url: (path) => `${origin}${path}`,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
