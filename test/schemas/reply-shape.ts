/**
 * What every reply of the API must look like, whatever was sent: a documented status, and
 * a body of the shape that status promises (docs/errors.md; schemas/errors.ts).
 */
import { expect } from 'vitest';
import { ERRORS, isErrorCode } from '../../schemas/errors.js';
import type { Operation } from '../../schemas/api/operations.js';

export const DOCUMENTED_STATUSES = new Set<number>([200, 422, ...Object.values(ERRORS).map((e) => e.status)]);

interface Reply {
  statusCode: number;
  body: string;
}

function parsed(res: Reply): unknown {
  try {
    return JSON.parse(res.body);
  } catch {
    throw new Error(`status ${res.statusCode} with a body that is not JSON: ${res.body.slice(0, 200)}`);
  }
}

/** A 422 body is exactly `{detail: [{loc, msg, type}, ...]}`. */
export function expectValidationBody(body: unknown): void {
  expect(body).toEqual({ detail: expect.any(Array) });
  const { detail } = body as { detail: unknown[] };
  expect(detail.length).toBeGreaterThan(0);
  for (const item of detail) {
    expect(Object.keys(item as object).sort()).toEqual(['loc', 'msg', 'type']);
    const { loc, msg, type } = item as { loc: unknown; msg: unknown; type: unknown };
    expect(Array.isArray(loc) && loc.length > 0).toBe(true);
    expect(['body', 'query', 'path']).toContain((loc as unknown[])[0]);
    for (const seg of loc as unknown[]) {
      expect(typeof seg === 'string' || (Number.isInteger(seg) && (seg as number) >= 0)).toBe(true);
    }
    expect(typeof msg === 'string' && msg.length > 0).toBe(true);
    expect(typeof type === 'string' && type.length > 0).toBe(true);
  }
}

/** A failure other than 422 is the envelope with a code of the one table, at that code's status. */
export function expectErrorEnvelope(status: number, body: unknown): void {
  expect(body).toMatchObject({
    success: false,
    error: { code: expect.any(String), message: expect.any(String), retriable: expect.any(Boolean), requestId: expect.any(String) },
  });
  const { code, retriable } = (body as { error: { code: string; retriable: boolean } }).error;
  expect(isErrorCode(code), `error.code ${code} is in ERRORS`).toBe(true);
  if (!isErrorCode(code)) return;
  expect(ERRORS[code].status, `status of ${code}`).toBe(status);
  expect(retriable).toBe(ERRORS[code].retriable);
}

export function expectDocumentedReply(op: Operation, res: Reply): void {
  expect(DOCUMENTED_STATUSES.has(res.statusCode), `status ${res.statusCode} is documented (${res.body.slice(0, 300)})`).toBe(true);
  expect(res.statusCode, res.body.slice(0, 300)).not.toBe(500);
  if (res.statusCode >= 200 && res.statusCode < 300) {
    if (op.rawResponse) return;
    const body = parsed(res) as { data?: unknown };
    expect(body).toEqual({ success: true, data: expect.any(Object) });
    expect(Array.isArray(body.data), 'data is an object, not an array').toBe(false);
    return;
  }
  const body = parsed(res);
  if (res.statusCode === 422) expectValidationBody(body);
  else expectErrorEnvelope(res.statusCode, body);
}
