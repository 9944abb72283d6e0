/**
 * A minimal stand-in for the Confluent Schema Registry, on 127.0.0.1, for tests only. The
 * production target is a real Confluent Schema Registry; this serves just the endpoints
 * @kafkajs/confluent-schema-registry calls (see its dist/api/index.js), with the registry's
 * response shapes and error codes:
 *
 *   POST /subjects/{subject}/versions      register → {id}; the same schema again → its id
 *   POST /subjects/{subject}               look a schema up → {subject, id, version, schema}
 *   GET  /subjects/{subject}/versions/{v}  a version, or `latest`
 *   GET  /subjects                         subject names
 *   GET  /schemas/ids/{id}                 → {schema}
 *   GET  /config/{subject}                 → {compatibilityLevel}; 404 (40408) when unset
 *   PUT  /config/{subject}                 → {compatibility}
 *
 * Ids are global: one schema (by Parsing Canonical Form) has one id across subjects.
 * Compatibility (BACKWARD, FORWARD, FULL and their _TRANSITIVE forms) is checked with avsc
 * resolvers, which approximates the registry's own check.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import avro from 'avsc';
import type { Type } from 'avsc';

interface Stored {
  id: number;
  schema: string;
  type: Type;
}

export interface LocalSchemaRegistry {
  readonly url: string;
  /** `METHOD /path` of every request, in order. */
  readonly requests: string[];
  /** Subject → the schema ids of its versions, oldest first. */
  readonly subjects: ReadonlyMap<string, readonly number[]>;
  /** Registers a schema directly (as another producer would), bypassing HTTP. */
  register(subject: string, schema: string): number;
  close(): Promise<void>;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
  }
}

function canReadWith(reader: Type, writer: Type): boolean {
  try {
    reader.createResolver(writer);
    return true;
  } catch {
    return false;
  }
}

function compatible(level: string, candidate: Type, existing: readonly Type[]): boolean {
  const transitive = level.endsWith('_TRANSITIVE');
  const against = transitive ? existing : existing.slice(-1);
  const mode = level.replace(/_TRANSITIVE$/, '');
  return against.every((old) => {
    const backward = canReadWith(candidate, old);
    const forward = canReadWith(old, candidate);
    return mode === 'NONE' || (mode === 'BACKWARD' ? backward : mode === 'FORWARD' ? forward : backward && forward);
  });
}

export async function startSchemaRegistry(options: { defaultCompatibility?: string } = {}): Promise<LocalSchemaRegistry> {
  const byId = new Map<number, Stored>();
  const byCanonical = new Map<string, Stored>();
  const subjects = new Map<string, number[]>();
  const config = new Map<string, string>();
  const requests: string[] = [];
  const defaultLevel = options.defaultCompatibility ?? 'BACKWARD';

  const parse = (schema: unknown): Type => {
    try {
      return avro.Type.forSchema(JSON.parse(String(schema)) as avro.schema.AvroSchema);
    } catch (error) {
      throw new HttpError(422, 42201, `Invalid schema: ${(error as Error).message}`);
    }
  };

  const register = (subject: string, schema: string): number => {
    const type = parse(schema);
    const canonical = JSON.stringify(type.schema());
    const versions = subjects.get(subject) ?? [];
    const existing = byCanonical.get(canonical);
    if (existing && versions.includes(existing.id)) return existing.id;
    const level = config.get(subject) ?? defaultLevel;
    const previous = versions.map((id) => (byId.get(id) as Stored).type);
    if (!compatible(level, type, previous)) {
      throw new HttpError(409, 409, `Schema being registered is incompatible with an earlier schema for subject "${subject}" (${level})`);
    }
    const stored = existing ?? { id: byId.size + 1, schema, type };
    byId.set(stored.id, stored);
    byCanonical.set(canonical, stored);
    subjects.set(subject, [...versions, stored.id]);
    return stored.id;
  };

  const versionOf = (subject: string, version: string) => {
    const versions = subjects.get(subject);
    if (!versions) throw new HttpError(404, 40401, `Subject '${subject}' not found.`);
    const n = version === 'latest' ? versions.length : Number(version);
    const id = versions[n - 1];
    if (id === undefined) throw new HttpError(404, 40402, `Version ${version} not found.`);
    return { subject, version: n, id, schema: (byId.get(id) as Stored).schema };
  };

  const route = (method: string, path: string[], body: Record<string, unknown>): unknown => {
    const [root, name, sub, version] = path;
    if (method === 'GET' && root === 'schemas' && name === 'ids' && sub !== undefined) {
      const stored = byId.get(Number(sub));
      if (!stored) throw new HttpError(404, 40403, 'Schema not found');
      return { schema: stored.schema };
    }
    if (root === 'config' && name !== undefined && sub === undefined) {
      if (method === 'PUT') {
        config.set(name, String(body.compatibility));
        return { compatibility: body.compatibility };
      }
      const level = config.get(name);
      if (method === 'GET' && level) return { compatibilityLevel: level };
      if (method === 'GET') throw new HttpError(404, 40408, `Subject '${name}' does not have subject-level compatibility configured`);
    }
    if (root === 'subjects' && name === undefined && method === 'GET') return [...subjects.keys()];
    if (root === 'subjects' && name !== undefined) {
      if (method === 'POST' && sub === 'versions' && version === undefined) {
        if (body.schemaType !== undefined && body.schemaType !== 'AVRO') throw new HttpError(422, 42201, 'only AVRO here');
        return { id: register(name, String(body.schema)) };
      }
      if (method === 'POST' && sub === undefined) {
        const canonical = JSON.stringify(parse(body.schema).schema());
        const stored = byCanonical.get(canonical);
        const versions = subjects.get(name);
        if (!versions) throw new HttpError(404, 40401, `Subject '${name}' not found.`);
        const index = stored ? versions.indexOf(stored.id) : -1;
        if (!stored || index < 0) throw new HttpError(404, 40403, 'Schema not found');
        return { subject: name, id: stored.id, version: index + 1, schema: stored.schema };
      }
      if (method === 'GET' && sub === 'versions' && version !== undefined) return versionOf(name, version);
    }
    throw new HttpError(404, 404, `HTTP 404 Not Found: ${method} /${path.join('/')}`);
  };

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    requests.push(`${method} ${url.pathname}`);
    let status = 200;
    let payload: unknown;
    try {
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      const path = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);
      payload = route(method, path, body);
    } catch (error) {
      status = error instanceof HttpError ? error.status : 500;
      payload = { error_code: error instanceof HttpError ? error.errorCode : 50001, message: (error as Error).message };
    }
    res.writeHead(status, { 'content-type': 'application/vnd.schemaregistry.v1+json' });
    res.end(JSON.stringify(payload));
  };

  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (raw += chunk));
    req.on('end', () => handle(req, res, raw));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    subjects,
    register,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
