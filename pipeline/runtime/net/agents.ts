/**
 * Node `http`/`https` agents that connect only where the guard allows: names go through the
 * guard's `lookup` (resolved and checked at connect time, so DNS rebinding meets the check),
 * and IP-literal hosts — for which Node never calls `lookup` — are checked in
 * `createConnection` before a socket is opened. Any client built on Node's agents (got,
 * got-scraping, node:http) gets the guard by taking these agents.
 */
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import type { NetGuard } from './guard.js';

type ConnectCallback = (error: Error | null, socket: Duplex) => void;
type ConnectionOptions = { host?: string | null; hostname?: string | null };

/** The literal host of a connection, or null when it is a name (checked by lookup). */
function literalHost(options: ConnectionOptions): string | null {
  const host = (options.host ?? options.hostname ?? '').replace(/^\[|\]$/g, '');
  return isIP(host) !== 0 ? host : null;
}

function refuse(guard: NetGuard, options: ConnectionOptions): Error | null {
  const host = literalHost(options);
  if (host === null) return null;
  const why = guard.addressRefusal(host);
  if (!why) return null;
  return Object.assign(new Error(`refused to connect to ${host}: ${why}`), { code: 'url_blocked' });
}

export interface GuardedAgents {
  readonly http: http.Agent;
  readonly https: https.Agent;
  destroy(): void;
}

export interface AgentSettings {
  readonly keepAlive?: boolean;
  readonly maxSockets?: number;
}

export function guardedAgents(guard: NetGuard, settings: AgentSettings = {}): GuardedAgents {
  const common = { keepAlive: settings.keepAlive ?? true, maxSockets: settings.maxSockets ?? 256, lookup: guard.lookup };

  class GuardedHttpAgent extends http.Agent {
    override createConnection(options: http.ClientRequestArgs, callback?: ConnectCallback): Duplex | null | undefined {
      const error = refuse(guard, options);
      if (!error) return super.createConnection(options, callback);
      process.nextTick(() => callback?.(error, undefined as unknown as Duplex));
      return undefined;
    }
  }

  class GuardedHttpsAgent extends https.Agent {
    override createConnection(options: https.RequestOptions, callback?: ConnectCallback): Duplex | null | undefined {
      const error = refuse(guard, options);
      if (!error) return super.createConnection(options, callback);
      process.nextTick(() => callback?.(error, undefined as unknown as Duplex));
      return undefined;
    }
  }

  const agents = { http: new GuardedHttpAgent(common), https: new GuardedHttpsAgent(common) };
  return {
    ...agents,
    destroy() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
