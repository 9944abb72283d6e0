/** A test server listening on 127.0.0.1 at a port the system chose: its port and origin. */
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function listenLocal(server: Server): Promise<{ port: number; origin: string }> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  return { port, origin: `http://127.0.0.1:${port}` };
}
