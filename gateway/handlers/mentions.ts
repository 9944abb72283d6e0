/**
 * Mentions at the gateway: GET /v1/mentions (every filter of the spec, newest found first,
 * cursor-paged) and PATCH /v1/mentions/{id} (any status to any other; the change is kept in
 * the mention's history, which the answer shows). Another key's mention is 404, like an
 * unknown id. The store's rules are pipeline/mentions/store.ts's.
 */
import type { Static } from '@sinclair/typebox';
import { decodeMentionCursor, listMentions, mentionView, readMention, setMentionStatus, statusHistory, type MentionFilters } from '../../pipeline/mentions/store.js';
import { AppError } from '../../pipeline/runtime/errors.js';
import type { MentionStatusBody } from '../../schemas/api/monitoring.js';
import { tenantOf, type HandlerContext, type OperationHandler } from '../handler.js';
import type { WatchGatewayDeps } from './watches.js';

const text = (v: unknown) => (typeof v === 'string' ? v : undefined);

function filtersOf(query: Record<string, unknown>): MentionFilters {
  const since = text(query.since);
  const filters: Record<string, unknown> = {
    watchId: text(query.watch_id),
    category: text(query.category),
    platform: text(query.platform),
    status: text(query.status),
    sinceMs: since === undefined ? undefined : Date.parse(since),
  };
  return Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined)) as MentionFilters;
}

export function mentionListHandler(deps: WatchGatewayDeps): OperationHandler {
  return {
    async handle(ctx) {
      const cursorText = text(ctx.query.cursor);
      const cursor = cursorText === undefined || cursorText === '' ? null : decodeMentionCursor(cursorText);
      if (cursorText && cursor === null) throw new AppError('bad_request', 'the cursor is not one this API returned; pass the `next` of the previous page');
      const limit = typeof ctx.query.limit === 'number' ? ctx.query.limit : 50;
      const page = await listMentions(deps.store, tenantOf(ctx), filtersOf(ctx.query), cursor, limit);
      return { data: { mentions: page.mentions.map(mentionView), next: page.next } };
    },
  };
}

export function mentionUpdateHandler(deps: WatchGatewayDeps): OperationHandler {
  return {
    async handle(ctx) {
      const id = ctx.params.mention_id ?? '';
      const mention = await readMention(deps.store, tenantOf(ctx), id);
      if (!mention) throw new AppError('not_found', `no mention ${id} for this key`);
      const { status } = ctx.body as Static<typeof MentionStatusBody>;
      const updated = status === mention.status ? mention : await setMentionStatus(deps.writer, tenantOf(ctx), mention, status, Date.now());
      const history = await statusHistory(deps.store, tenantOf(ctx), id);
      return { data: { ...mentionView(updated), statusHistory: history.map((h) => ({ from: h.from, to: h.to, at: new Date(h.atMs).toISOString() })) } };
    },
  };
}
