/**
 * Running one request of the HTTP interface (server.ts) on a chdb connection whose settings,
 * read-only flag and database are the request's (connections.ts: kept open between requests,
 * filed under that state), and the ClickHouse-shaped pieces of the answer: the
 * X-ClickHouse-Summary header and the error text.
 */
import type { Logger } from '../../pipeline/runtime/log.js';
import { changesConnectionState, type Connections } from './connections.js';
import type { ChRequest } from './request.js';
import { BadName, insertTarget, paramsStatement, quoteIdentifier, setStatement } from './sql.js';

export interface Summary {
  read_rows: number;
  read_bytes: number;
  written_rows: number;
  written_bytes: number;
  result_bytes: number;
  elapsed_ns: number;
}

export interface Execution {
  readonly dataDir: string;
  /** The chdb package, loaded by startChdbHttp (chdb-http.ts). */
  readonly chdb: typeof import('chdb');
  /** Setting names the engine knows (system.settings). */
  readonly knownSettings: ReadonlySet<string>;
  readonly log: Logger;
  /** The open connections requests run on. */
  readonly connections: Connections;
}

/**
 * On a connection in the request's state (its known settings, `readonly = 2` for a GET, USE
 * database), `SET param_…` for its parameters, then the statement: an INSERT with body rows
 * as raw bytes when its format allows, anything else as `<statement>\n<body>`. Resolves with
 * the output bytes in `format`.
 */
export async function execute(ctx: Execution, req: ChRequest, readOnly: boolean, format: string): Promise<{ body: Buffer; summary: Summary }> {
  const started = process.hrtime.bigint();
  const elapsed = () => Number(process.hrtime.bigint() - started);
  const { sql: settings, ignored } = setStatement(req.settings, new Map(), ctx.knownSettings);
  if (ignored.length > 0) ctx.log.debug({ ignored }, 'unknown settings ignored');
  const params = paramsStatement(req.params);
  const state = {
    settings,
    readOnly,
    database: req.database ? quoteIdentifier(req.database) : null,
    paramNames: [...req.params.keys()].sort(),
  };
  return ctx.connections.with(state, !changesConnectionState(req.sql), async (session) => {
    if (params) await session.queryAsync(params);
    const target = req.data ? insertTarget(req.sql) : null;
    if (req.data && target) {
      const columns = target.columns ? { columns: target.columns } : {};
      const r = await session.insert({ table: target.table, ...columns, values: req.data, format: target.format });
      return {
        body: Buffer.alloc(0),
        summary: { read_rows: 0, read_bytes: 0, written_rows: r.rowsWritten, written_bytes: r.bytesWritten, result_bytes: 0, elapsed_ns: elapsed() },
      };
    }
    const sql = req.data ? `${req.sql}\n${req.data.toString('utf8')}` : req.sql;
    const r = await session.queryAsync(sql, { format });
    const bytes = r.bytes();
    const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return {
      body,
      summary: { read_rows: r.rowsRead, read_bytes: r.bytesRead, written_rows: 0, written_bytes: 0, result_bytes: body.length, elapsed_ns: elapsed() },
    };
  });
}

/** The summary as ClickHouse sends it: a JSON object of decimal strings. */
export function summaryHeader(s: Summary): string {
  return JSON.stringify({
    read_rows: String(s.read_rows),
    read_bytes: String(s.read_bytes),
    written_rows: String(s.written_rows),
    written_bytes: String(s.written_bytes),
    total_rows_to_read: '0',
    result_rows: '0',
    result_bytes: String(s.result_bytes),
    elapsed_ns: String(s.elapsed_ns),
  });
}

/** ClickHouse's error text (`Code: N. DB::Exception: … (NAME)`) and code for a failure. */
export function clickhouseError(error: unknown): { code: number; text: string } {
  const message = error instanceof Error ? error.message : String(error);
  const match = /^Code:\s*(\d+)\./.exec(message);
  if (match) return { code: Number(match[1]), text: message.endsWith('\n') ? message : `${message}\n` };
  if (error instanceof BadName) return { code: 457, text: `Code: 457. DB::Exception: ${message}. (BAD_QUERY_PARAMETER)\n` };
  const given = (error as { clickhouseCode?: unknown } | null)?.clickhouseCode;
  const code = typeof given === 'number' ? given : 1001;
  return { code, text: `Code: ${code}. DB::Exception: ${message}. (STD_EXCEPTION)\n` };
}
