/**
 * The keys command line against a running server: both are real processes sharing one
 * DATA_DIR, as in production. Also the first-start key and API_KEY of main.ts, and that no
 * secret ever reaches the ledger or the server's output.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyWebhookSecret } from '../../pipeline/webhooks/signing.js';
import { runTs, startServer, type RunResult, type Server } from '../helpers/process.js';

const KEY_LINE = /^wds_[0-9A-Za-z]{40}$/m;
const API_KEY = 'my-own-api-key-12345'; // 20 characters

function keys(dataDir: string, ...args: string[]): Promise<RunResult> {
  return runTs('infra/cli/keys.ts', args, { DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
}

function lines(text: string): string[] {
  return text.split('\n').filter((l) => l !== '');
}

/** The `list` row of a key, by id, as columns. */
function listRow(list: RunResult, id: string): string[] | undefined {
  return lines(list.stdout)
    .map((l) => l.split('\t'))
    .find((cols) => cols[0] === id);
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

function occurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

describe('infra/cli/keys', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'wds-keys-'));
    dirs.push(dir);
    return dir;
  };
  const dataDir = tempDir();
  const apiKeyDir = tempDir();
  const servers: Server[] = [];
  let server: Server;
  let apiKeyServer: Server;
  let firstKey: string;
  /** Every secret used against `server`, to look for in its output and ledger. */
  const secrets: string[] = [];

  beforeAll(async () => {
    [server, apiKeyServer] = await Promise.all([
      startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'trace' }),
      startServer({ DATA_DIR: apiKeyDir, LOG_LEVEL: 'trace', API_KEY }),
    ]);
    servers.push(server, apiKeyServer);
    firstKey = (await server.waitFor(KEY_LINE, 5000))[0];
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  async function templates(base: string, key: string): Promise<{ status: number; body: { data?: { cost?: unknown } } }> {
    const res = await fetch(`${base}/v1/templates`, {
      headers: { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(5000),
    });
    return { status: res.status, body: (await res.json()) as { data?: { cost?: unknown } } };
  }

  it('prints a key on first start with an empty DATA_DIR, and that key works', async () => {
    expect(firstKey).toMatch(KEY_LINE);
    secrets.push(firstKey);
    const res = await templates(server.url, firstKey);
    expect(res.status).toBe(200);
    expect(res.body.data?.cost).toEqual({ credits: 0, remaining: null });
  });

  let created: { key: string; id: string };

  it('create prints the key alone on the last line, and the running server accepts it at once', async () => {
    const res = await keys(dataDir, 'create', '--name', 'ci robot', '--credits', '10');
    expect(res.code, res.stderr).toBe(0);
    const out = lines(res.stdout);
    const key = out[out.length - 1] as string;
    expect(key).toMatch(/^wds_[0-9A-Za-z]{40}$/);
    expect(occurrences(res.stdout, key)).toBe(1);
    const id = /^created (key_\w+)\t/m.exec(res.stdout)?.[1];
    expect(id).toBeDefined();
    created = { key, id: id as string };
    secrets.push(key);
    const served = await templates(server.url, key);
    expect(served.status).toBe(200);
    expect(served.body.data?.cost).toEqual({ credits: 0, remaining: 10 });
  });

  it('create gives 1000 credits by default and accepts unlimited', async () => {
    const [byDefault, unlimited] = await Promise.all([
      keys(dataDir, 'create', '--name', 'default'),
      keys(dataDir, 'create', '--name', 'boss', '--credits', 'unlimited'),
    ]);
    for (const res of [byDefault, unlimited]) expect(res.code, res.stderr).toBe(0);
    const a = lines(byDefault.stdout).pop() as string;
    const b = lines(unlimited.stdout).pop() as string;
    secrets.push(a, b);
    expect((await templates(server.url, a)).body.data?.cost).toEqual({ credits: 0, remaining: 1000 });
    expect((await templates(server.url, b)).body.data?.cost).toEqual({ credits: 0, remaining: null });
  });

  it('topup changes the balance the running server sees', async () => {
    const res = await keys(dataDir, 'topup', created.id, '--credits', '5');
    expect(res.code, res.stderr).toBe(0);
    const list = await keys(dataDir, 'list');
    expect(list.code).toBe(0);
    expect(listRow(list, created.id)?.[3]).toBe('15');
    expect((await templates(server.url, created.key)).body.data?.cost).toEqual({ credits: 0, remaining: 15 });
  });

  it('list shows ids, prefixes, names, credits and status, and no full secret', async () => {
    const list = await keys(dataDir, 'list');
    expect(list.code).toBe(0);
    const out = lines(list.stdout);
    expect(out[0]).toBe('id\tprefix\tname\tcredits\tstatus\tcreated');
    expect(out[out.length - 1]).toBe('4 keys');
    expect(listRow(list, created.id)?.slice(1, 5)).toEqual([created.key.slice(0, 12), '"ci robot"', '15', 'active']);
    for (const secret of secrets) {
      expect(list.stdout).not.toContain(secret);
      expect(list.stdout).toContain(secret.slice(0, 12));
    }
  });

  it('revoke makes the running server answer 401 on the next request', async () => {
    expect((await templates(server.url, created.key)).status).toBe(200);
    const res = await keys(dataDir, 'revoke', created.key.slice(0, 12)); // by prefix
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).not.toContain(created.key);
    const after = await templates(server.url, created.key);
    expect(after.status).toBe(401);
    expect(after.body).toMatchObject({ success: false, error: { code: 'invalid_api_key' } });
    expect(listRow(await keys(dataDir, 'list'), created.id)?.[4]).toBe('revoked');
    // The other keys still work.
    expect((await templates(server.url, firstKey)).status).toBe(200);
  });

  describe.concurrent('bad arguments', () => {
    const emptyDir = tempDir();
    it.each([
      ['create without --name', ['create']],
      ['topup with fractional credits', ['topup', 'key_x', '--credits', '1.5']],
      ['revoke of an unknown key', ['revoke', 'key_nope']],
      ['webhook-secret of an unknown key', ['webhook-secret', 'key_nope']],
      ['an unknown command', ['frobnicate']],
      ['an unknown option', ['list', '--bogus']],
    ])('%s exits non-zero with a message on stderr', async (_name, args) => {
      // Each its own DATA_DIR: these run at once, and a command may create the directory's
      // ledger and server secret; two creating them together would test that race, not this.
      const res = await keys(tempDir(), ...args);
      expect(res.code).not.toBe(0);
      expect(res.stderr).toMatch(/^keys: \S/);
      expect(res.stdout).toBe('');
    });

    // infra/cli/keys.ts run: a missing command is a usage error, so the usage goes to stderr
    // (not stdout) with a non-zero exit code.
    it('no command at all exits non-zero with the usage on stderr', async () => {
      const res = await keys(emptyDir);
      expect(res.code).not.toBe(0);
      expect(res.stderr).toContain('usage:');
    });

    // infra/cli/keys.ts run: `--help` is a request, not a usage error, although it names no
    // command: the usage goes to stdout and the exit code is 0.
    it('--help prints the usage on stdout and exits 0', async () => {
      const res = await keys(emptyDir, '--help');
      expect(res.stdout).toContain('usage:');
      expect(res.code).toBe(0);
    });
  });

  it('API_KEY: the server accepts it and list shows it as unlimited', async () => {
    const res = await templates(apiKeyServer.url, API_KEY);
    expect(res.status).toBe(200);
    expect(res.body.data?.cost).toEqual({ credits: 0, remaining: null });
    expect(apiKeyServer.stdout()).not.toMatch(KEY_LINE); // no first-start key with API_KEY set
    const list = await keys(apiKeyDir, 'list');
    expect(list.code).toBe(0);
    const rows = lines(list.stdout).slice(1, -1).map((l) => l.split('\t'));
    expect(rows).toHaveLength(1);
    expect(rows[0]?.slice(1, 5)).toEqual([API_KEY.slice(0, 6), '"API_KEY"', 'unlimited', 'active']);
    expect(list.stdout).not.toContain(API_KEY);
  });

  it('webhook-secret prints the key\'s signing secret, derived from the server secret in DATA_DIR, and the server never logs it', async () => {
    const otherId = lines((await keys(dataDir, 'list')).stdout)
      .map((l) => l.split('\t')[0] as string)
      .find((id) => id.startsWith('key_') && id !== created.id) as string;
    const [byId, byPrefix, other] = await Promise.all([
      keys(dataDir, 'webhook-secret', created.id),
      keys(dataDir, 'webhook-secret', created.key.slice(0, 12)),
      keys(dataDir, 'webhook-secret', otherId),
    ]);
    for (const res of [byId, byPrefix, other]) expect(res.code, res.stderr).toBe(0);
    const secret = byId.stdout.trim();
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(byPrefix.stdout.trim()).toBe(secret);
    // The running server created the server secret at start (its notifier); the CLI derives from it.
    const serverSecret = readFileSync(join(dataDir, 'webhook-secret'), 'utf8').trim();
    expect(secret).toBe(keyWebhookSecret(serverSecret, created.id));
    const otherSecret = other.stdout.trim();
    expect(otherSecret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(otherSecret).not.toBe(secret);
    for (const text of [server.stdout(), server.stderr()]) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(serverSecret);
    }
  });

  it('the ledger holds hashes of keys, never a key', () => {
    const ledger = readFileSync(join(dataDir, 'keys.jsonl'), 'utf8');
    expect(secrets.length).toBeGreaterThanOrEqual(4);
    for (const secret of secrets) {
      expect(ledger).not.toContain(secret);
      expect(ledger).toContain(sha256(secret));
    }
    const apiLedger = readFileSync(join(apiKeyDir, 'keys.jsonl'), 'utf8');
    expect(apiLedger).not.toContain(API_KEY);
    expect(apiLedger).toContain(sha256(API_KEY));
  });

  it('no key appears in the servers\' output, except the first-start key printed once', async () => {
    // Requests that carry keys through the error paths too.
    await templates(server.url, `${firstKey}x`);
    await fetch(`${server.url}/v1/nothing`, { headers: { authorization: `Bearer ${firstKey}` } });
    await fetch(`${apiKeyServer.url}/v1/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: '{',
    });
    const [exitA, exitB] = await Promise.all([server.stop(), apiKeyServer.stop()]);
    expect(exitA.code).toBe(0);
    expect(exitB.code).toBe(0);

    const outA = server.stdout();
    expect(outA).toMatch(/"msg":"request".*"status":200|"status":200.*"msg":"request"/); // access-log lines were written, so there was something to leak
    expect(occurrences(outA, firstKey)).toBe(1);
    expect(lines(outA).filter((l) => l.includes(firstKey))).toEqual([firstKey]);
    expect(server.stderr()).not.toContain(firstKey);
    for (const secret of secrets.slice(1)) {
      expect(outA).not.toContain(secret);
      expect(server.stderr()).not.toContain(secret);
    }
    expect(apiKeyServer.stdout() + apiKeyServer.stderr()).not.toContain(API_KEY);
  });

  // Last: the embedded store allows one server per DATA_DIR, so the first one is stopped (by
  // the test above) before the second start.
  it('prints no key on a second start with the same DATA_DIR, and the keys still work', async () => {
    await server.stop(); // already stopped above unless that test failed early
    const again = await startServer({ DATA_DIR: dataDir, LOG_LEVEL: 'trace' });
    servers.push(again);
    // A served request proves start-up output is complete.
    expect((await templates(again.url, firstKey)).status).toBe(200);
    expect((await templates(again.url, created.key)).status).toBe(401); // still revoked
    const exit = await again.stop();
    expect(exit.code).toBe(0);
    expect(again.stdout()).not.toMatch(KEY_LINE);
    for (const secret of secrets) expect(again.stdout() + again.stderr()).not.toContain(secret);
  });
});
