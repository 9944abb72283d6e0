/**
 * pipeline/keys/ledger-file.ts beyond the shared contract (keys.shared.test.ts): two
 * registries on one ledger file stand for the server and `npm run keys`, each appending
 * while the other has not read the other's lines yet.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileKeyRegistry } from '../../pipeline/keys/ledger-file.js';

const dirs: string[] = [];
const registries: FileKeyRegistry[] = [];
function open(dir: string): FileKeyRegistry {
  const registry = new FileKeyRegistry(dir);
  registries.push(registry);
  return registry;
}
afterEach(() => {
  for (const r of registries.splice(0)) r.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('pipeline/keys/ledger-file', () => {
  it('charges appended by two processes in turn each count once, whichever read the other first', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wds-ledger-'));
    dirs.push(dir);
    const server = open(dir);
    const cli = open(dir);
    const { record } = await server.create({ name: 'shared', credits: 100 });
    // The command line has not read the key's lines yet: its charge follows them in the file.
    expect((await cli.get(record.id))?.balance).toBe(100);
    expect(await cli.settle(record, 0, 5, { requestId: 'r1', op: 'scrape' })).toBe(95);
    // The server's read ends before the command line's line: its own charge comes after it.
    expect(await server.settle(record, 0, 3, { requestId: 'r2', op: 'scrape' })).toBe(92);
    expect(await server.settle(record, 0, 2, { requestId: 'r3', op: 'scrape' })).toBe(90);
    cli.sync();
    expect((await cli.get(record.id))?.balance).toBe(90);
    expect(await cli.usage(record)).toEqual([{ month: expect.stringMatching(/^\d{4}-\d{2}$/), credits: 10 }]);
    // A third reader from the file alone agrees, and the file holds each charge once.
    expect((await open(dir).get(record.id))?.balance).toBe(90);
    const charges = readFileSync(join(dir, 'keys.jsonl'), 'utf8').split('\n').filter((l) => l.includes('"charge"'));
    expect(charges.map((l) => (JSON.parse(l) as { requestId: string }).requestId)).toEqual(['r1', 'r2', 'r3']);
  });

  it('finds a key another process created a moment ago by id or prefix', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'wds-ledger-'));
    dirs.push(dir);
    const server = open(dir);
    expect(await server.get('nobody')).toBeNull();
    const { record } = await open(dir).create({ name: 'new', credits: 7 });
    expect((await server.get(record.id))?.balance).toBe(7);
    expect((await server.get(record.prefix))?.id).toBe(record.id);
  });
});
