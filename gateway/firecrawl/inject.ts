/**
 * One of our operations made in-process (`app.inject`) for a Firecrawl request, its answer read
 * as a JSON object: what the Firecrawl routes and the crawl watcher both ask of our API.
 */
import type { FastifyInstance } from 'fastify';
import { isObject, type Json } from './translate.js';

export interface Answer {
  status: number;
  body: Json;
  headers: Record<string, unknown>;
}

export interface OurCall {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly url: string;
  readonly headers: Record<string, string>;
  /** The caller's address, for the operations' per-address rules. */
  readonly remoteAddress: string;
  /** A JSON value (serialised here) or raw bytes (an upload). */
  readonly payload?: unknown;
}

/** Our answer to `call`; a body that is not a JSON object reads as `{}`. */
export async function ourAnswer(app: FastifyInstance, call: OurCall): Promise<Answer> {
  const { payload, ...rest } = call;
  const res = await app.inject({ ...rest, ...(payload === undefined ? {} : { payload: Buffer.isBuffer(payload) ? payload : JSON.stringify(payload) }) });
  let body: Json = {};
  try {
    const parsed: unknown = res.json();
    if (isObject(parsed)) body = parsed;
  } catch {
    body = {};
  }
  return { status: res.statusCode, body, headers: res.headers as Record<string, unknown> };
}

/** The answer's `data` object; `{}` when it has none. */
export function dataOf(answer: Answer): Json {
  return isObject(answer.body.data) ? answer.body.data : {};
}
