/**
 * `web-data-service <command>`: the command line (docs/cli.md), on commander. Its commands
 * are the operation commands of cli/commands.ts (flags generated from the operations'
 * schemas, cli/options.ts), `keys` (cli/keys.ts, the same as `npm run keys`), and `serve`
 * and `mcp`, which the composition root (main.ts) hands in: this folder imports neither the
 * gateway nor the actors.
 *
 * Exit codes: 0 ok; 1 failed otherwise; 2 bad input (a usage error, a 4xx the request's
 * input caused); 3 partial (a job with pages it could not read, or cancelled; results with
 * errors); 4 refused (key, credits, a blocked URL, a rate limit); 5 the service unavailable;
 * 130 interrupted, the job left running.
 */
import { Command, CommanderError, Option } from 'commander';
import { mcpCommandEnvironment, type McpCommandEnvironment } from '../pipeline/service/config.js';
import { CliError, connect, EXIT, type Api } from './client.js';
import { COMMANDS, GROUPS, type CommandSpec } from './commands.js';
import { keysMain } from './keys.js';
import { addFieldOptions, fieldsOf, fieldValues, kebab, readData } from './options.js';
import { createOutput } from './output.js';
import { argName, operationOf, runSpec } from './run.js';

export interface CliHost {
  readonly version: string;
  /** The entry point (main.js), run again as the embedded service when no --url is given. */
  readonly script: string;
  /** Starts the service (`serve`): main.ts's own command line. */
  serve(argv: string[]): Promise<void>;
  /** The MCP server over stdio (`mcp`). */
  mcp(argv: string[]): Promise<void>;
  /** Default: this process's WDS_URL and WDS_API_KEY (pipeline/service/config.ts). */
  readonly environment?: McpCommandEnvironment;
}

const NAME = 'web-data-service';
/** Flags of the command line itself; a field of that name is given with --data. */
const GLOBAL_FLAGS = new Set(['url', 'key', 'json', 'output', 'verbose', 'data', 'wait', 'help', 'version']);

const EXIT_HELP = `
Exit codes:
  0  ok
  1  failed (e.g. the page could not be read)
  2  bad input (usage, validation_failed, not_found, …)
  3  partial (a job ended with pages it could not read, or was cancelled)
  4  refused (missing or invalid key, insufficient_credits, url_blocked, rate_limited)
  5  service unavailable (unreachable, or it answered 500, 501, 503 or 504)
  130  interrupted; the job was left running

Without --url (or WDS_URL) a command runs the embedded service itself, on the settings of
the environment (DATA_DIR, …), as \`npm start\` would. Output is pretty on a terminal and
JSON lines when piped (or with --json); -o DIR writes pages as .md files and tables as CSV.`;

function examples(spec: CommandSpec): string {
  return `\nExamples:\n${spec.examples.map((e) => `  $ ${NAME} ${e}`).join('\n')}\n`;
}

interface Context {
  readonly host: CliHost;
  exitCode: number;
}

function addSpec(parent: Command, spec: CommandSpec, ctx: Context): void {
  const op = operationOf(spec);
  const args = spec.args ?? [];
  const cmd = parent.command(spec.name).description(op.summary);
  for (const arg of args) cmd.argument(arg.startsWith('[') ? arg : `<${arg}>`);
  const fields = fieldsOf(op.body ?? op.query, args.map(argName)).filter((f) => !GLOBAL_FLAGS.has(f.name) && !GLOBAL_FLAGS.has(kebab(f.name)));
  addFieldOptions(cmd, fields);
  if (op.body || op.query) cmd.option('--data <json>', 'the request fields as JSON, or @file (flags win over it)');
  if (spec.job && op.method === 'POST') cmd.option('--no-wait', 'print the job id and return at once instead of following it');
  if (spec.job && op.method === 'GET') cmd.option('--wait', 'follow the job to its end with a progress bar, then answer its results');
  cmd.addHelpText('after', examples(spec));
  cmd.action(async (...received: unknown[]) => {
    const command = received.at(-1) as Command;
    const opts = command.optsWithGlobals<Record<string, unknown>>();
    const values: Record<string, unknown> = {};
    args.forEach((arg, i) => {
      if (received[i] !== undefined) values[argName(arg)] = received[i];
    });
    const output = createOutput({ json: opts.json === true, ...(typeof opts.output === 'string' ? { output: opts.output } : {}) });
    const api = connectFor(ctx.host, opts, output.note);
    try {
      ctx.exitCode = await runSpec(api, {
        spec,
        args: values,
        fields: fieldValues(fields, opts, readData(opts.data as string | undefined)),
        wait: op.method === 'POST' ? opts.wait !== false : opts.wait === true,
        output,
      });
    } finally {
      await api.close();
    }
  });
}

function connectFor(host: CliHost, opts: Record<string, unknown>, say: (line: string) => void): Api {
  return connect({
    url: opts.url as string | undefined,
    key: opts.key as string | undefined,
    environment: host.environment ?? mcpCommandEnvironment(),
    script: host.script,
    say,
    ...(opts.verbose ? { serviceOutput: (chunk: string | Buffer) => void process.stderr.write(chunk) } : {}),
  });
}

export function buildProgram(ctx: Context): Command {
  const program = new Command(NAME)
    .description('Scrape, crawl, map, search and watch the web from the terminal, against a running Web Data Service or the embedded one.')
    .version(ctx.host.version)
    .addOption(new Option('--url <url>', 'the service to call (default: WDS_URL; none: run the embedded service)'))
    .addOption(new Option('--key <key>', 'the API key (default: WDS_API_KEY)'))
    .option('--json', 'JSON lines, also on a terminal')
    .option('-o, --output <dir>', 'write pages as .md files (one per page) and tables as .csv under DIR')
    .option('--verbose', "show the embedded service's log lines")
    .showHelpAfterError('(add --help for usage)')
    .exitOverride()
    .addHelpText('after', EXIT_HELP);
  for (const spec of COMMANDS) addSpec(program, spec, ctx);
  for (const group of GROUPS) {
    const parent = program.command(group.name).description(group.summary).exitOverride();
    for (const spec of group.commands) addSpec(parent, spec, ctx);
  }
  program.command('keys').description('Manage API keys (create, list, revoke, topup, webhook-secret): `keys --help`').argument('[args...]');
  program
    .command('serve')
    .description('Start the service (as `npm start`; --role ROLE for one role)')
    .option('--role <role>', 'all, gateway, or one actor pool')
    .addHelpText('after', `\nExamples:\n  $ ${NAME} serve\n  $ PORT=3002 DATA_DIR=./data ${NAME} serve\n  $ ${NAME} serve --role fetcher\n`);
  program.command('mcp').description('The MCP server over stdio, for AI agents (docs/mcp.md); --url to call a running service').option('--url <url>');
  return program;
}

function failure(error: unknown): number {
  if (error instanceof CliError) {
    process.stderr.write(`${NAME}: ${error.code}: ${error.message}\n`);
    return error.exitCode;
  }
  if (error instanceof CommanderError) {
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return EXIT.ok;
    return EXIT.badInput;
  }
  process.stderr.write(`${NAME}: ${error instanceof Error ? error.message : String(error)}\n`);
  return EXIT.failed;
}

/** Runs the command line on `argv` (without node and the script); its exit code. `serve` and `mcp` run until they end the process. */
export async function runCli(argv: string[], host: CliHost): Promise<number> {
  // These take their own flags (--url, --help) as their own command lines do.
  const help = argv.includes('--help') || argv.includes('-h');
  if (argv[0] === 'serve' && !help) {
    await host.serve(argv.slice(1));
    return new Promise<number>(() => undefined);
  }
  if (argv[0] === 'mcp') {
    await host.mcp(argv.slice(1));
    return new Promise<number>(() => undefined);
  }
  if (argv[0] === 'keys') {
    await keysMain(argv.slice(1));
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  }
  const ctx: Context = { host, exitCode: EXIT.ok };
  try {
    await buildProgram(ctx).parseAsync(argv, { from: 'user' });
    return ctx.exitCode;
  } catch (error) {
    return failure(error);
  }
}
