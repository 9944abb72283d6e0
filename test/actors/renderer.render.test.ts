/** actors/renderer/render: one render's bounds and failures (the `timeout`, a refused connection). */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { hasChromium, useRenderer } from '../helpers/renderer.js';

describe.skipIf(!hasChromium)('actors/renderer/render', () => {
  const rig = useRenderer();

  it('bounds the whole render by timeout (fetch_timeout)', async () => {
    // /hang never answers: without the bound the render would outlive the test.
    const reply = await rig.failed(rig.site.url('/hang'), { timeout: 1500 });
    expect(reply.errorCode).toBe('fetch_timeout');
  });

  it('answers a server that refuses the connection with connection_refused, over HTTP and HTTPS', async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    expect((await rig.failed(`http://127.0.0.1:${closed}/`)).errorCode).toBe('connection_refused');
    expect((await rig.failed(`https://127.0.0.1:${closed}/`)).errorCode).toBe('connection_refused');
  });
});
