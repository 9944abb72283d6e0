/**
 * actors/renderer/upstream: connections through an upstream proxy of the configured pools
 * (scrape option `proxy`), and renders through one, still behind the guard.
 */
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { tunnelThrough } from '../../actors/renderer/upstream.js';
import { ProxyRouter } from '../../pipeline/runtime/net/proxies.js';
import { startForwardProxy } from '../helpers/fixture-site.js';
import { startRenderSite } from '../helpers/render-site.js';
import { hasChromium, useRenderer } from '../helpers/renderer.js';

describe('actors/renderer/upstream', () => {
  describe('tunnelThrough', () => {
    it('opens CONNECT with the proxy credentials and hands back the tunnel; a refusal is proxy_failed', async () => {
      const site = await startRenderSite();
      const auths: (string | undefined)[] = [];
      const upstream = http.createServer();
      upstream.on('connect', (req: http.IncomingMessage, socket: Duplex) => {
        auths.push(req.headers['proxy-authorization']);
        if (req.headers['proxy-authorization'] !== `Basic ${Buffer.from('user:p@ss').toString('base64')}`) {
          socket.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
          return;
        }
        const [host, port] = (req.url ?? '').split(':');
        const target = net.connect(Number(port), host, () => {
          socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
          target.pipe(socket);
          socket.pipe(target);
        });
      });
      upstream.listen(0, '127.0.0.1');
      await once(upstream, 'listening');
      const port = (upstream.address() as net.AddressInfo).port;
      try {
        const sitePort = Number(new URL(site.origin).port);
        const tunnel = await tunnelThrough(`http://user:p%40ss@127.0.0.1:${port}`, '127.0.0.1', sitePort);
        tunnel.write('GET /reveal HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
        const chunks: Buffer[] = [];
        for await (const chunk of tunnel) chunks.push(chunk as Buffer);
        expect(Buffer.concat(chunks).toString('utf8')).toMatch(/^HTTP\/1\.1 200[\s\S]*The revealed paragraph/);
        await expect(tunnelThrough(`http://user:wrong@127.0.0.1:${port}`, '127.0.0.1', sitePort)).rejects.toMatchObject({ code: 'proxy_failed', message: expect.not.stringContaining('wrong') });
        expect(auths).toHaveLength(2);
      } finally {
        upstream.close();
        await site.close();
      }
    });
  });

  describe.skipIf(!hasChromium)('rendering through a proxy pool', () => {
    const rig = useRenderer();

    it('renders through a configured proxy pool (scrape option proxy), still behind the guard', async () => {
      const upstream = await startForwardProxy();
      try {
        const proxies = new ProxyRouter({ datacenter: [upstream.url] });
        const { html } = await rig.rendered(rig.site.url('/js'), { waitFor: 500, proxy: 'datacenter' }, { ...rig.openDeps, proxies });
        expect(html).toContain('Added by script after load');
        expect(upstream.seen).toContain(rig.site.url('/js'));
        const seen = upstream.seen.length;
        // Another render without the option connects directly: lanes belong to one context.
        await rig.rendered(rig.site.url('/js'), { waitFor: 1, proxy: 'none' }, { ...rig.openDeps, proxies });
        expect(upstream.seen.length).toBe(seen);
        const missing = await rig.failed(rig.site.url('/js'), { waitFor: 1, proxy: 'residential' }, { ...rig.openDeps, proxies });
        expect(missing.errorCode).toBe('proxy_unavailable');
        // Through the proxy, a subrequest to a private address is still refused here, before the proxy sees it.
        const strict = await rig.rendered(rig.site.url(`/subrequest?to=${encodeURIComponent(`${rig.site.secret}/via-proxy`)}`), { waitFor: 500, proxy: 'datacenter' }, { ...rig.guardedDeps, proxies });
        expect(strict.html).toContain('<p id="status">failed</p>');
        expect(upstream.seen.some((u) => u.startsWith(rig.site.secret))).toBe(false);
        expect(rig.site.requests.filter((r) => r.host === 'secret' && r.path.includes('via-proxy'))).toHaveLength(0);
      } finally {
        await upstream.close();
      }
    });
  });
});
