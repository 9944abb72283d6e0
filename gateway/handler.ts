/**
 * What an operation's handler receives and returns. The gateway's route wrapper does auth,
 * rate limiting, validation, credit reservation and the envelope; a handler does only its
 * operation's work.
 */
import type { Events } from '../pipeline/runtime/events.js';
import type { Logger } from '../pipeline/runtime/log.js';
import type { State } from '../pipeline/runtime/state/state.js';
import type { BatchWriter } from '../pipeline/runtime/store/batch-writer.js';
import type { Store } from '../pipeline/runtime/store/store.js';
import type { KeyRecord } from '../pipeline/keys/registry.js';
import type { Operation } from '../schemas/api/operations.js';

/** A file of a multipart operation: `body` is `{[field]: UploadedFilePart}` for its `multipartFiles`. */
export interface UploadedFilePart {
  readonly filename: string;
  /** The part's declared Content-Type. */
  readonly mimetype: string;
  readonly data: Buffer;
}

export interface HandlerContext {
  readonly op: Operation;
  /** Validated body with defaults filled in; for a multipart operation, its files by field name. */
  readonly body: unknown;
  readonly query: Record<string, unknown>;
  readonly params: Record<string, string>;
  /** Null only for operations that need no key. */
  readonly key: KeyRecord | null;
  readonly requestId: string;
  readonly log: Logger;
  /** Aborted when the client goes away. */
  readonly signal: AbortSignal;
}

export interface HandlerResult {
  readonly data?: Record<string, unknown>;
  /**
   * The data already serialized as a JSON object, for constant answers (templates, source) and
   * the data of a pipeline's Reply (the bytes its actor wrote): the envelope is then built
   * around it without parsing or serializing it again. It holds no `cost` key (the envelope
   * adds it). Give `data` or this.
   */
  readonly dataJson?: string;
  /**
   * For `rawResponse` operations (GET /v1/fetch): the 200 body is these bytes with this
   * content type and these extra headers, instead of the envelope; the cost travels in the
   * `x-credits-*` headers (schemas/api/operations.ts RAW_RESPONSE_HEADERS).
   */
  readonly raw?: RawBody;
  /** Credits to charge; defaults to 0. */
  readonly credits?: number;
  /** For page results: where the page came from. */
  readonly source?: 'fresh' | 'cache' | 'index';
}

export interface RawBody {
  readonly body: Buffer;
  /** Sent as the Content-Type; `application/octet-stream` when empty. */
  readonly contentType: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface OperationHandler {
  /**
   * Checks of the request that depend on the operation's own tables rather than its schema
   * (a social endpoint's inputs, gateway/handlers/social.ts), made before credits are
   * reserved: throws ValidationFailed (422) or an AppError. May fill in defaults.
   */
  check?(ctx: HandlerContext): void;
  /** Most credits the request can cost, reserved before work (default: 0). */
  estimate?(ctx: HandlerContext): number;
  handle(ctx: HandlerContext): Promise<HandlerResult>;
}

export type Handlers = Readonly<Record<string, OperationHandler>>;

/**
 * What the handlers of stored things — jobs, monitors, watches and mentions — read and write:
 * the runtime's coordination state, store, batch writer and events.
 */
export interface RecordDeps {
  readonly state: State;
  readonly store: Pick<Store, 'query'>;
  readonly writer: Pick<BatchWriter, 'write'>;
  readonly events: Pick<Events, 'emit'>;
}

/** The key a request's records belong to (every record belongs to one key; another key's is a 404). */
export const tenantOf = (ctx: Pick<HandlerContext, 'key'>): string => ctx.key?.id ?? '';
