/**
 * actors/renderer/proxy: the guarded forward proxy every connection of the browser goes
 * through — CONNECT targets, private addresses refused for subrequests, redirects and
 * WebSockets, a kept-alive connection the site closed, and no service to other local programs.
 */
import { once } from 'node:events';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { splitAuthority } from '../../actors/renderer/proxy.js';
import { hasChromium, useRenderer } from '../helpers/renderer.js';

describe('actors/renderer/proxy', () => {
  describe('splitAuthority', () => {
    it('reads host and port of a CONNECT target, IPv6 included, and refuses bad ones', () => {
      expect(splitAuthority('example.com:443')).toEqual({ host: 'example.com', port: 443 });
      expect(splitAuthority('[::1]:8080')).toEqual({ host: '::1', port: 8080 });
      expect(splitAuthority('example.com')).toBeNull();
      expect(splitAuthority('example.com:0')).toBeNull();
      expect(splitAuthority('example.com:70000')).toBeNull();
    });
  });

  describe.skipIf(!hasChromium)('in a render', () => {
    const rig = useRenderer();

    it('blocks subrequests and redirects to a private address (FETCH_ALLOW_PRIVATE off)', async () => {
      const { html, extras } = await rig.rendered(rig.site.url(`/subrequest?to=${encodeURIComponent(`${rig.site.secret}/internal`)}`), { waitFor: 500, formats: ['network'] }, rig.guardedDeps);
      expect(html).toContain('<p id="status">failed</p>');
      const tried = (extras.network as Record<string, any>[]).filter((e) => e.url.startsWith(rig.site.secret));
      expect(tried.length).toBeGreaterThan(0);
      for (const entry of tried) expect(entry).toMatchObject({ status: null, error: expect.any(String) });
      const redirect = await rig.failed(rig.site.url(`/redirect?to=${encodeURIComponent(`${rig.site.secret}/internal`)}`), {}, rig.guardedDeps);
      expect(redirect.errorCode).toBe('url_blocked');
      // An HTTPS hop is a CONNECT tunnel the proxy refuses before any TLS.
      const secure = await rig.failed(rig.site.url(`/redirect?to=${encodeURIComponent(`${rig.site.secret.replace('http:', 'https:')}/internal`)}`), {}, rig.guardedDeps);
      expect(secure.errorCode).toBe('url_blocked');
      expect(rig.site.requests.filter((r) => r.host === 'secret')).toHaveLength(0);
    });

    it('keeps WebSockets to a private address out too (and the site sees them when private addresses are allowed)', async () => {
      const ws = `/websocket?to=${encodeURIComponent(`${rig.site.secret.replace('http:', 'ws:')}/socket`)}`;
      const blocked = await rig.rendered(rig.site.url(ws), { waitFor: 700 }, rig.guardedDeps);
      expect(blocked.html).toMatch(/<p id="ws">error closed<\/p>/);
      expect(rig.site.requests.filter((r) => r.host === 'secret')).toHaveLength(0);
      await rig.rendered(rig.site.url(ws), { waitFor: 700 });
      expect(rig.site.paths()).toContain('upgrade /socket');
    });

    it('sends a request once more when the site closed the kept-alive connection it reused (not upstream_error)', async () => {
      // Each connection serves one request; a second one on it is cut off, as a site whose
      // keep-alive timeout passed just as the proxy reused the connection (heavy load).
      let resets = 0;
      // Three images, so that the proxy may keep several connections to the rig.site.
      const body = '<!doctype html><title>t</title><p id="kept">kept alive</p><img src="/a.png"><img src="/b.png"><img src="/c.png">';
      const server = net.createServer((socket) => {
        let requests = 0;
        let head = '';
        socket.on('error', () => undefined);
        socket.on('data', (chunk: Buffer) => {
          head += chunk.toString('latin1');
          while (head.includes('\r\n\r\n')) {
            head = head.slice(head.indexOf('\r\n\r\n') + 4);
            if (++requests > 1) {
              resets++;
              return void socket.destroy();
            }
            socket.write(`HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${body.length}\r\nKeep-Alive: timeout=60\r\n\r\n${body}`);
          }
        });
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
      try {
        for (const path of ['/one', '/two', '/three']) expect((await rig.rendered(`${origin}${path}`, { waitFor: 1, blockAssets: false })).html).toContain('kept alive');
        expect(resets).toBeGreaterThan(0);
      } finally {
        server.close();
      }
    });

    it('serves only its own browser: another local program gets no answer from the guarded proxy or a lane', async () => {
      await rig.rendered(rig.site.url('/js'), { waitFor: 1 });
      const proxy = await rig.open.guardedProxy();
      const lane = await proxy.openLane('http://127.0.0.1:9');
      /** What a connection from this process (not the browser) gets back for `request`. */
      const answer = async (server: string, request: string) => {
        const socket = net.connect(Number(new URL(server).port), '127.0.0.1');
        socket.on('error', () => undefined);
        await once(socket, 'connect');
        socket.write(request);
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        await once(socket, 'close');
        return Buffer.concat(chunks).toString('latin1');
      };
      const seen = rig.site.requests.length;
      try {
        for (const server of [proxy.settings.server, lane.server]) {
          expect(await answer(server, `GET ${rig.site.url('/js')} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)).toBe('');
          expect(await answer(server, `CONNECT ${new URL(rig.site.origin).host} HTTP/1.1\r\nHost: x\r\n\r\n`)).toBe('');
        }
        expect(rig.site.requests.length).toBe(seen);
        // The browser itself still renders through it.
        await rig.rendered(rig.site.url('/js'), { waitFor: 1 });
      } finally {
        await lane.close();
      }
    });
  });
});
