/**
 * The key commands: `web-data-service keys <command>` (cli/index.ts) and `npm run keys --
 * <command>` (infra/cli/keys.ts), one code for both. They manage API keys where the server keeps them — the ledger under
 * DATA_DIR (embedded), or ClickHouse and Redis (STORE=clickhouse, STATE=redis). Works while
 * the server runs: the server sees a change on its next request.
 *
 *   create --name NAME [--credits N|unlimited]   the new key is printed alone on the last line
 *   list                                         one line per key: id, prefix, name, credits, status
 *   revoke ID|PREFIX
 *   topup ID|PREFIX --credits N
 *   webhook-secret ID|PREFIX                     the key's webhook signing secret, alone on one line
 *
 * The webhook signing secret is derived from the deployment's server secret (WEBHOOK_SECRET,
 * else DATA_DIR/webhook-secret: pipeline/webhooks/), so it is the same wherever the CLI and
 * the notifier read the same setting or directory; it is printed, never logged.
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../pipeline/service/config.js';
import { openKeyRegistry } from '../pipeline/keys/index.js';
import { createStderrLogger } from '../pipeline/runtime/log.js';
import type { KeyRecord } from '../pipeline/keys/registry.js';
import { serverWebhookSecret } from '../pipeline/webhooks/secret.js';
import { keyWebhookSecret } from '../pipeline/webhooks/signing.js';

export const KEYS_USAGE = `usage: npm run keys -- <command>   (or: web-data-service keys <command>)
  create --name NAME [--credits N|unlimited]   (default credits: 1000)
  list
  revoke ID|PREFIX
  topup ID|PREFIX --credits N
  webhook-secret ID|PREFIX`;

function describe(k: KeyRecord): string {
  const credits = k.unlimited ? 'unlimited' : String(k.balance);
  return [k.id, k.prefix, JSON.stringify(k.name), credits, k.revoked ? 'revoked' : 'active', k.createdAt].join('\t');
}

function parseCredits(raw: string | undefined, allowUnlimited: boolean): number | 'unlimited' {
  if (raw === undefined) throw new Error('--credits is required');
  if (allowUnlimited && raw === 'unlimited') return raw;
  if (!/^\d+$/.test(raw) || Number(raw) > Number.MAX_SAFE_INTEGER) {
    throw new Error(`--credits must be a whole number${allowUnlimited ? ' or "unlimited"' : ''}, got "${raw}"`);
  }
  return Number(raw);
}

/** Runs one key command; its lines go to `out` (results) and `err` (usage). Throws on a failed command. */
export async function runKeyCommand(argv: string[], out: (line: string) => void, err: (line: string) => void): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { name: { type: 'string' }, credits: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
  const [command, target] = positionals;
  if (values.help) {
    out(KEYS_USAGE);
    return;
  }
  if (!command) {
    err(KEYS_USAGE);
    process.exitCode = 2;
    return;
  }
  const config = loadConfig();
  // The registry the server uses: the ledger under DATA_DIR, or (STORE=clickhouse with
  // STATE=redis) the store and Redis shared by every gateway.
  const registry = await openKeyRegistry(config, createStderrLogger(config.logLevel === 'info' ? 'warn' : config.logLevel));
  try {
    switch (command) {
      case 'create': {
        if (!values.name || values.name.length > 120) throw new Error('--name is required (1 to 120 characters)');
        const credits = values.credits === undefined ? 1000 : parseCredits(values.credits, true);
        const { key, record } = await registry.create({ name: values.name, credits });
        out(`created ${describe(record)}`);
        out('the key is shown once; store it now:');
        out(key);
        return;
      }
      case 'list': {
        const keys = await registry.list();
        out(['id', 'prefix', 'name', 'credits', 'status', 'created'].join('\t'));
        for (const k of keys) out(describe(k));
        out(`${keys.length} key${keys.length === 1 ? '' : 's'}`);
        return;
      }
      case 'revoke': {
        if (!target) throw new Error('revoke needs a key id or prefix');
        out(`revoked ${describe(await registry.revoke(target))}`);
        return;
      }
      case 'topup': {
        if (!target) throw new Error('topup needs a key id or prefix');
        const credits = parseCredits(values.credits, false) as number;
        const before = await registry.topup(target, credits);
        out(`added ${credits} credits: ${describe((await registry.get(before.id)) as KeyRecord)}`);
        return;
      }
      case 'webhook-secret': {
        if (!target) throw new Error('webhook-secret needs a key id or prefix');
        const record = await registry.get(target);
        if (!record) throw new Error(`no key with id or prefix "${target}"`);
        out(keyWebhookSecret(serverWebhookSecret(config), record.id));
        return;
      }
      default:
        throw new Error(`unknown command "${command}"\n${KEYS_USAGE}`);
    }
  } finally {
    registry.close();
  }
}

/** Runs a key command as a process does: results on standard output, failures on standard error and exit code 1 (2 for no command). */
export async function keysMain(argv: string[]): Promise<void> {
  try {
    await runKeyCommand(
      argv,
      (line) => process.stdout.write(`${line}\n`),
      (line) => process.stderr.write(`${line}\n`),
    );
  } catch (error) {
    const message = error instanceof ConfigError || error instanceof Error ? error.message : String(error);
    process.stderr.write(`keys: ${message}\n`);
    process.exitCode = 1;
  }
}
