/**
 * Building blocks shared by the API schemas. Everything here is plain JSON Schema
 * (draft 2020-12, as OpenAPI 3.1 uses) built with TypeBox so each schema also yields
 * its TypeScript type.
 *
 * Two extensions are understood by the gateway's validator and ignored by other readers:
 * - `discriminator: {propertyName}` (OpenAPI's, also Ajv's) on tagged unions;
 * - `x-error: {type, msg}` names the 422 `type` and `msg` reported when a combinator
 *   (`not`, `anyOf`, `oneOf`) or a `pattern` on that schema fails.
 */
import { Type, type Static, type TObject, type TSchema } from '@sinclair/typebox';

export interface XError {
  type: string;
  msg: string;
}

/** `T | null` as `type: [T, 'null']`, which reads better in docs and errors than anyOf. */
export function Nullable<T extends TSchema>(schema: T, options: Record<string, unknown> = {}) {
  const copy: Record<string, unknown> = { ...schema };
  if (typeof copy.type === 'string') copy.type = [copy.type, 'null'];
  else if (Array.isArray(copy.anyOf)) copy.anyOf = [...(copy.anyOf as unknown[]), { type: 'null' }];
  else throw new Error('Nullable() needs a schema with a single `type` or an `anyOf`');
  if (Array.isArray(copy.enum)) copy.enum = [...(copy.enum as unknown[]), null];
  return Type.Unsafe<Static<T> | null>({ ...copy, ...options });
}

/** A string limited to the given values (`{type: string, enum}` rather than anyOf of consts). */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** An object of string values (headers), keys 1 to 256 characters, values up to 8192. */
export function StringMap(options: Record<string, unknown> = {}) {
  return Type.Unsafe<Record<string, string>>({
    type: 'object',
    propertyNames: { minLength: 1, maxLength: 256 },
    additionalProperties: { type: 'string', maxLength: 8192 },
    ...options,
  });
}

/**
 * An object union told apart by its `type` property. Every branch must declare `type` as a
 * literal. Invalid input is reported against the branch its `type` names only.
 */
export function TaggedUnion<T extends TObject[]>(branches: [...T], options: Record<string, unknown> = {}) {
  return Type.Unsafe<Static<T[number]>>({
    type: 'object',
    required: ['type'],
    discriminator: { propertyName: 'type' },
    oneOf: branches,
    ...options,
  });
}

/** A closed object: unknown properties are a 422 `extra_forbidden`. */
export function Closed<P extends Parameters<typeof Type.Object>[0]>(properties: P, options: Record<string, unknown> = {}) {
  return Type.Object(properties, { additionalProperties: false, ...options });
}

/** Adds an `x-error` annotation (see the module comment). */
export function withError<T extends TSchema>(schema: T, xError: XError): T {
  return { ...schema, 'x-error': xError };
}

/**
 * An http(s) scheme, a host's first character, then no whitespace to the end. The same strings
 * as `[^\s/?#]+[^\s]*$`, which is quadratic: Ajv collects every error, so the pattern runs even
 * on a string past its `maxLength`, and a 2 MB body's URL ending in a space held the gateway for hours.
 */
export const HTTP_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s/?#][^\\s]*$';

/** An absolute http or https URL. */
export function HttpUrl(description: string, options: Record<string, unknown> = {}) {
  return withError(
    Type.String({ minLength: 8, maxLength: 2048, pattern: HTTP_URL_PATTERN, description, ...options }),
    { type: 'url_invalid', msg: 'must be an absolute http or https URL' },
  );
}

/** A domain name or any URL on it ("example.com", "https://www.example.com/about"). */
export function DomainOrUrl(description: string) {
  return Type.String({ minLength: 1, maxLength: 2048, description });
}

/** An identifier in a path (job, monitor, watch, mention ids). */
export function Id(description: string) {
  return Type.String({ minLength: 1, maxLength: 128, description });
}

export const Cursor = Nullable(Type.String({ maxLength: 1024 }), {
  description: 'The `next` cursor of the previous page; omit for the first page.',
});

export const Pagination = (max: number, defaultLimit: number) =>
  Type.Integer({ minimum: 1, maximum: max, default: defaultLimit, description: `Items per page, 1 to ${max}.` });

export const COUNTRY_CODE = Type.String({
  minLength: 2,
  maxLength: 2,
  description: 'ISO 3166-1 alpha-2 country code, exactly 2 characters (for example `us`, `DE`).',
});

/** The `cost` object every data response carries. */
export const Cost = Type.Object(
  {
    credits: Type.Integer({ minimum: 0, description: 'Credits this call was charged.' }),
    remaining: Nullable(Type.Integer(), {
      description: "The key's balance after the charge; null for a key with unlimited credits.",
    }),
    source: Type.Optional(
      StringEnum(['fresh', 'cache', 'index'], {
        description:
          "For page results: `fresh` fetched now, `cache` the caller's own copy within `maxAge` (free), `index` another caller's copy from the shared index (1 credit).",
      }),
    ),
  },
  { additionalProperties: true, description: 'What this call was charged.' },
);

/** The success envelope: every 200 body is an open object. */
export const SuccessEnvelope = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object({}, { additionalProperties: true }),
  },
  { additionalProperties: true },
);

export const ErrorEnvelope = Type.Object(
  {
    success: Type.Literal(false),
    error: Type.Object(
      {
        code: Type.String({ description: 'Stable code to branch on; see the error code table.' }),
        message: Type.String(),
        retriable: Type.Boolean({ description: 'Whether the same request may succeed later.' }),
        requestId: Type.String(),
      },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);

export const ValidationErrorBody = Type.Object({
  detail: Type.Array(
    Type.Object({
      loc: Type.Array(Type.Union([Type.String(), Type.Integer()]), {
        description: 'Path to the offending value, starting with `body`, `query`, `path` or `header`.',
      }),
      msg: Type.String({ description: 'What is wrong, in words.' }),
      type: Type.String({ description: 'Stable machine code, for example `missing`, `extra_forbidden`, `less_than_equal`.' }),
    }),
  ),
});
