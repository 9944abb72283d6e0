/**
 * What an operation of the API is (one row of the contract's table, schemas/api/operations.ts,
 * written beside its family's schemas), and `op`, which writes a row keeping its id's and
 * pricing's literal types.
 */
import type { TSchema } from '@sinclair/typebox';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

export interface Operation {
  /** operationId in the OpenAPI document; the gateway's handler key. */
  readonly id: string;
  readonly method: HttpMethod;
  /** OpenAPI-style path, `{name}` for parameters. */
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  /** JSON body schema. */
  readonly body?: TSchema;
  /** A multipart/form-data body with these binary file fields, all required. */
  readonly multipartFiles?: readonly string[];
  readonly query?: TSchema;
  /** false only for GET /v1/source. */
  readonly auth: boolean;
  /** `free` operations never charge; `metered` ones charge per the spec's rules. */
  readonly pricing: 'free' | 'metered';
  /** The 200 body is the fetched content itself, not the envelope. */
  readonly rawResponse?: boolean;
}

/**
 * Headers of a `rawResponse` operation's 200 answer: its cost, which has no envelope to go
 * in, and facts about the upstream response. The gateway sets them; the OpenAPI document
 * declares them.
 */
export const RAW_RESPONSE_HEADERS = {
  creditsCharged: { name: 'x-credits-charged', schema: { type: 'integer' }, description: 'Credits this request was charged.' },
  creditsRemaining: {
    name: 'x-credits-remaining',
    schema: { type: 'string' },
    description: "The key's balance after the charge: a whole number, or `unlimited`.",
  },
  upstreamStatus: {
    name: 'x-upstream-status',
    schema: { type: 'integer' },
    description: 'The HTTP status the URL answered with (after redirects); its bytes are returned whatever it is.',
  },
  finalUrl: { name: 'x-final-url', schema: { type: 'string' }, description: 'The URL after redirects.' },
} as const;

/** An operation row whose id and pricing keep their literal types (OperationId, FreeOperationId). */
type Row<Id extends string, Pricing extends Operation['pricing']> = Operation & { readonly id: Id; readonly pricing: Pricing };

export function op<const Id extends string, const Pricing extends Operation['pricing'] = 'metered'>(
  o: Omit<Operation, 'id' | 'auth' | 'pricing'> & { readonly id: Id; readonly auth?: boolean; readonly pricing?: Pricing },
): Row<Id, Pricing> {
  return { auth: true, pricing: 'metered', ...o } as Row<Id, Pricing>;
}
