/**
 * Running one command of the table (cli/commands.ts): its request built from the positional
 * arguments and flags, made through the Api, and its answer shown (cli/output.ts); a job
 * command follows the job (cli/jobs.ts). Each returns the process's exit code.
 */
import { readFileSync } from 'node:fs';
import { basename, isAbsolute, join, relative } from 'node:path';
import { OPERATIONS, pathParamNames, type Operation } from '../schemas/api/operations.js';
import { CliError, EXIT, type Api } from './client.js';
import type { CommandSpec } from './commands.js';
import { followJob, jobExitCode, jobPages, jobPath } from './jobs.js';
import { attributionOf, pageUrl, pretty, rowLine, rowsOf, writeFile, writePage, writeTable, type Json, type Output } from './output.js';

export function operationOf(spec: CommandSpec): Operation {
  const op = OPERATIONS.find((o) => o.id === spec.operation);
  if (!op) throw new Error(`no operation ${spec.operation}`);
  return op;
}

/** A crawl's unreadable pages listed at its end; `crawl-errors ID` lists them all. */
export const ERRORS_SHOWN = 20;

/** `urls...` → `urls`, `[name]` → `name`. */
export const argName = (arg: string): string => arg.replace(/^\[|\]$/g, '').replace(/\.\.\.$/, '');

export interface Invocation {
  readonly spec: CommandSpec;
  /** Positional values by field name. */
  readonly args: Readonly<Record<string, unknown>>;
  /** The body or query fields from the flags and --data. */
  readonly fields: Readonly<Record<string, unknown>>;
  /** Follow a job (false: `--no-wait`, or a status command without `--wait`). */
  readonly wait: boolean;
  readonly output: Output;
}

interface Request {
  readonly method: string;
  readonly path: string;
  readonly query?: Record<string, unknown>;
  readonly body?: unknown;
  readonly form?: FormData;
}

function requestOf(inv: Invocation, op: Operation): Request {
  const values: Record<string, unknown> = { ...inv.fields, ...inv.args };
  const params = pathParamNames(op.path);
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(values[name] ?? '')));
  for (const p of params) delete values[p];
  if (inv.spec.upload) {
    const file = String(inv.args.file);
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch (error) {
      throw new CliError('bad_input', `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`, EXIT.badInput);
    }
    const form = new FormData();
    form.set('file', new Blob([new Uint8Array(bytes)]), basename(file));
    return { method: op.method, path, form };
  }
  if (op.method === 'GET' || op.method === 'DELETE') return { method: op.method, path, query: values };
  return { method: op.method, path, body: values };
}

/** Runs the command; its exit code. */
export async function runSpec(api: Api, inv: Invocation): Promise<number> {
  const op = operationOf(inv.spec);
  const req = requestOf(inv, op);
  if (inv.spec.job && (req.method === 'POST' || inv.wait)) return runJob(api, inv, req);
  const data = await api.call(req.method, req.path, { ...req, raw: inv.spec.show?.bytes === true });
  return show(inv, data);
}

/** A file as a person finds it: relative to the working directory when it is below it. */
function shown(file: string): string {
  const rel = relative(process.cwd(), file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

/** The files `-o DIR` writes for an answer that is not a job's: its page, its table, else its JSON. */
function writeAnswer(inv: Invocation, dir: string, data: unknown, rows: Json[] | null, notices: readonly string[]): string[] {
  const { spec } = inv;
  if (spec.show?.page) {
    const doc = data as Json;
    const source = pageUrl(doc) || String(inv.args.url ?? `upload://${basename(String(inv.args.file ?? 'file'))}`);
    return [writePage(dir, { ...doc, metadata: { ...((doc.metadata ?? {}) as Json), sourceURL: source } }, new Set())];
  }
  if (rows && spec.show?.csv) return writeTable(dir, spec.show.csv, rows, notices);
  const file = join(dir, `${spec.operation}.json`);
  writeFile(file, `${JSON.stringify(data, null, 2)}\n`);
  return [file];
}

/** Shows (or writes) an answer that is not a job's. */
function show(inv: Invocation, data: unknown): number {
  const { output, spec } = inv;
  if (data instanceof Uint8Array) {
    process.stdout.write(data);
    return EXIT.ok;
  }
  const rows = rowsOf(data, spec.show?.rows);
  const notices = attributionOf(data);
  if (output.dir) {
    for (const file of writeAnswer(inv, output.dir, data, rows, notices)) output.note(`wrote ${shown(file)}`);
  } else if (output.json) {
    for (const row of rows ?? [data]) output.out(JSON.stringify(row));
  } else if (spec.show?.page && typeof (data as Json).markdown === 'string') {
    output.out(String((data as Json).markdown));
  } else if (rows) {
    rows.forEach((row, i) => output.out(`${String(i + 1).padStart(3)}. ${rowLine(row)}`));
    output.note(`${rows.length} ${spec.show?.rows ?? 'rows'}`);
  } else {
    output.out(pretty(data, output.colors));
  }
  for (const line of notices) output.note(`attribution: ${line}`);
  return (rows ?? []).some((r) => r && typeof r === 'object' && (r as Json).error) ? EXIT.partial : EXIT.ok;
}

async function runJob(api: Api, inv: Invocation, req: Request): Promise<number> {
  const kind = inv.spec.job as 'crawl' | 'batch' | 'leads';
  const { output } = inv;
  let id: string;
  if (req.method === 'POST') {
    const started = (await api.call(req.method, req.path, req)) as Json;
    id = String(started.id);
    if (typeof started.warning === 'string') output.note(`warning: ${started.warning}`);
    if (!inv.wait) {
      if (output.json) output.out(JSON.stringify(started));
      else output.out(id);
      output.note(`${kind} ${id} started; follow it with \`web-data-service ${kind}-status ${id} --wait\``);
      return EXIT.ok;
    }
    output.note(`${kind} ${id} started`);
  } else {
    id = String(inv.args.job_id);
  }
  const followed = await followJob(api, kind, id, { label: (id.startsWith(kind) ? id : `${kind} ${id}`).slice(0, 20), say: output.note, tty: process.stderr.isTTY === true, ask: process.stdin.isTTY === true });
  if (followed.left) return 130;
  if (kind === 'leads') return leadsResults(inv, followed.status);
  return pageResults(api, inv, kind, id, followed.status);
}

async function pageResults(api: Api, inv: Invocation, kind: 'crawl' | 'batch', id: string, status: Json): Promise<number> {
  const { output } = inv;
  const taken = new Set<string>();
  let count = 0;
  for await (const doc of jobPages(api, kind, id)) {
    count += 1;
    if (output.dir) writePage(output.dir, doc, taken);
    else if (output.json) output.out(JSON.stringify(doc));
    else output.out(`${String(count).padStart(4)}. ${pageUrl(doc)}  ${String(((doc.metadata ?? {}) as Json).title ?? '')}`);
  }
  const failed = Number(status.failed) || 0;
  output.note(`${kind} ${id} ${String(status.status)}: ${count} page${count === 1 ? '' : 's'}${failed ? `, ${failed} could not be read` : ''}${output.dir ? `, written under ${shown(output.dir)}` : ''}`);
  if (failed > 0 && kind === 'crawl') {
    const errors = (await api.call('GET', `${jobPath(kind, id)}/errors`)) as Json;
    const list = (errors.errors ?? []) as Json[];
    for (const e of list.slice(0, ERRORS_SHOWN)) output.note(`  failed: ${String(e.url)}  ${String(e.code ?? e.error ?? '')}`);
    if (list.length > ERRORS_SHOWN) output.note(`  … and ${list.length - ERRORS_SHOWN} more: web-data-service crawl-errors ${id}`);
  }
  if (status.error) output.note(`error: ${JSON.stringify(status.error)}`);
  return jobExitCode(kind, status, count);
}

function leadsResults(inv: Invocation, status: Json): number {
  const leads = (Array.isArray(status.leads) ? status.leads : []) as Json[];
  const code = show(inv, status);
  if (status.error) inv.output.note(`error: ${JSON.stringify(status.error)}`);
  return code === EXIT.ok ? jobExitCode('leads', status, leads.length) : code;
}
