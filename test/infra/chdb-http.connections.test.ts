/**
 * infra/chdb-http/connections.ts without an engine: connections are filed under their state
 * and reused only for the same state, set up once, closed when their statement failed or
 * changed their state, and bounded while idle.
 */
import type { Session } from 'chdb';
import { describe, expect, it } from 'vitest';
import { changesConnectionState, Connections, type ConnectionState } from '../../infra/chdb-http/connections.js';

interface Fake {
  readonly id: number;
  readonly queries: string[];
  closed: boolean;
}

function rig(options: { idlePerState?: number; idleTotal?: number } = {}) {
  const opened: Fake[] = [];
  const connections = new Connections(() => {
    const fake: Fake = { id: opened.length, queries: [], closed: false };
    opened.push(fake);
    const session = {
      queryAsync: async (sql: string) => {
        fake.queries.push(sql);
        return {};
      },
      close: () => {
        fake.closed = true;
      },
    };
    return session as unknown as Session;
  }, options);
  const run = (state: ConnectionState, keep = true, fail = false) =>
    connections.with(state, keep, async (session) => {
      await session.queryAsync('SELECT 1');
      if (fail) throw new Error('statement failed');
    });
  return { connections, opened, run };
}

const plain: ConnectionState = { settings: null, readOnly: false, database: null, paramNames: [] };
const tuned: ConnectionState = { settings: "SET max_threads = '2'", readOnly: false, database: '`db`', paramNames: [] };

describe('infra/chdb-http/connections', () => {
  it('sets a connection up once and reuses it for the same state only', async () => {
    const { connections, opened, run } = rig();
    await run(tuned);
    await run(tuned);
    await run(tuned);
    expect(opened).toHaveLength(1);
    expect(opened[0]?.queries).toEqual(["SET max_threads = '2'", 'USE `db`', 'SELECT 1', 'SELECT 1', 'SELECT 1']);
    await run(plain);
    await run({ ...plain, readOnly: true });
    await run({ ...plain, paramNames: ['x'] });
    expect(opened).toHaveLength(4);
    expect(opened[2]?.queries).toEqual(['SET readonly = 2', 'SELECT 1']);
    expect(connections.idleConnections).toBe(4);
  });

  it('opens one connection per request running at once', async () => {
    const { opened, connections } = rig();
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const running = [1, 2, 3].map(() => connections.with(plain, true, () => gate));
    release();
    await Promise.all(running);
    expect(opened).toHaveLength(3);
    expect(connections.idleConnections).toBe(3);
  });

  it('closes a connection whose statement failed or changed its state', async () => {
    const { connections, opened, run } = rig();
    await expect(run(plain, true, true)).rejects.toThrow('statement failed');
    await run(plain, false);
    expect(opened.map((f) => f.closed)).toEqual([true, true]);
    expect(connections.idleConnections).toBe(0);
  });

  it('keeps at most idlePerState and idleTotal idle connections, closing the rest', async () => {
    const { connections, opened } = rig({ idlePerState: 2, idleTotal: 3 });
    const hold = async (state: ConnectionState, n: number) => {
      let release = () => {};
      const gate = new Promise<void>((resolve) => (release = resolve));
      const running = Array.from({ length: n }, () => connections.with(state, true, () => gate));
      release();
      await Promise.all(running);
    };
    await hold(plain, 3);
    expect(connections.idleConnections).toBe(2);
    await hold(tuned, 2);
    expect(connections.idleConnections).toBe(3);
    expect(opened.filter((f) => f.closed)).toHaveLength(2);
    connections.close();
    expect(opened.every((f) => f.closed)).toBe(true);
  });

  it('knows the statements that change a connection\'s state', () => {
    expect(changesConnectionState('SET max_threads = 1')).toBe(true);
    expect(changesConnectionState('  use other')).toBe(true);
    expect(changesConnectionState('CREATE TEMPORARY TABLE t (a UInt8)')).toBe(true);
    expect(changesConnectionState('SELECT 1')).toBe(false);
    expect(changesConnectionState('INSERT INTO settings_log FORMAT JSONEachRow')).toBe(false);
  });
});
