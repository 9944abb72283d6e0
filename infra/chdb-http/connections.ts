/**
 * The chdb connections the HTTP interface runs requests on, kept open between requests.
 *
 * A request's settings, its read-only flag and its database are connection state (SET, USE),
 * so an idle connection is filed under them: a request is given a connection whose state is
 * already what it asks for, or a new one that is set up first. Parameters are state too
 * (`SET param_x`), set on every request; a connection is filed under the names its requests
 * set, so each reuse overwrites every parameter an earlier request left there and a
 * statement never reads another request's value. A statement that changes the connection's
 * own state (`SET`, `USE`, a temporary table) or fails leaves its connection closed rather
 * than filed back.
 *
 * Before this a request opened a connection of its own and ran SET and USE on it: three
 * engine calls and a connection's set-up around each statement (bench/README.md "Scaling
 * apart").
 */
import type { Session } from 'chdb';

/** What a connection's state is made of before a request's own statement runs. */
export interface ConnectionState {
  /** `SET a = '1', …` of the request's known settings, or null. */
  readonly settings: string | null;
  readonly readOnly: boolean;
  /** The quoted database for `USE`, or null. */
  readonly database: string | null;
  /** The request's parameter names, sorted. */
  readonly paramNames: readonly string[];
}

export interface ConnectionsOptions {
  /** Idle connections kept for one state (default 8). */
  readonly idlePerState?: number;
  /** Idle connections kept in all (default 32). */
  readonly idleTotal?: number;
}

/** A statement after which a connection's state is not what it was filed under. */
const CHANGES_STATE = /^\s*(?:SET|USE)\b|\bTEMPORARY\b/i;

export function changesConnectionState(sql: string): boolean {
  return CHANGES_STATE.test(sql.slice(0, 4096));
}

function stateKey(state: ConnectionState): string {
  return JSON.stringify([state.settings, state.readOnly, state.database, state.paramNames]);
}

export class Connections {
  private readonly idle = new Map<string, Session[]>();
  private idleCount = 0;
  private closed = false;
  private readonly idlePerState: number;
  private readonly idleTotal: number;

  constructor(
    private readonly open: () => Session,
    options: ConnectionsOptions = {},
  ) {
    this.idlePerState = options.idlePerState ?? 8;
    this.idleTotal = options.idleTotal ?? 32;
  }

  /**
   * Runs `use` on a connection in `state`: an idle one filed under it, else a new one set up
   * with SET and USE. The connection is filed back afterwards unless `use` threw or `keep`
   * says no (its statement changed the connection's state).
   */
  async with<T>(state: ConnectionState, keep: boolean, use: (session: Session) => Promise<T>): Promise<T> {
    const key = stateKey(state);
    let session = this.take(key);
    if (!session) {
      session = this.open();
      try {
        if (state.settings) await session.queryAsync(state.settings);
        if (state.readOnly) await session.queryAsync('SET readonly = 2');
        if (state.database) await session.queryAsync(`USE ${state.database}`);
      } catch (error) {
        session.close();
        throw error;
      }
    }
    let result: T;
    try {
      result = await use(session);
    } catch (error) {
      session.close();
      throw error;
    }
    if (keep) this.give(key, session);
    else session.close();
    return result;
  }

  /** Idle connections now, for tests. */
  get idleConnections(): number {
    return this.idleCount;
  }

  /** Closes every idle connection; connections in use close when their request ends. */
  close(): void {
    this.closed = true;
    for (const sessions of this.idle.values()) for (const s of sessions) s.close();
    this.idle.clear();
    this.idleCount = 0;
  }

  private take(key: string): Session | undefined {
    const sessions = this.idle.get(key);
    const session = sessions?.pop();
    if (!session) return undefined;
    this.idleCount--;
    if (sessions?.length === 0) this.idle.delete(key);
    return session;
  }

  private give(key: string, session: Session): void {
    const sessions = this.idle.get(key) ?? [];
    if (this.closed || sessions.length >= this.idlePerState) return void session.close();
    if (this.idleCount >= this.idleTotal) this.evictOne();
    sessions.push(session);
    this.idle.set(key, sessions);
    this.idleCount++;
  }

  /** Closes an idle connection of the state filed longest ago (Map order). */
  private evictOne(): void {
    for (const [key, sessions] of this.idle) {
      const session = sessions.shift();
      if (!session) continue;
      session.close();
      this.idleCount--;
      if (sessions.length === 0) this.idle.delete(key);
      return;
    }
  }
}
