/**
 * The fetch the model providers' SDKs call (providers.ts): Node's, with each answer's body
 * bounded at MODEL_ANSWER_MAX_BYTES as it is read, after decompression. The SDKs read a whole
 * answer into one string; a provider answering an endless stream or a gzip bomb (a few KB on
 * the wire, gigabytes inflated) held the service for 20 s while its memory grew past 2 GB, or
 * stopped the process outright (V8's "Check failed: i::kMaxInt >= len": a string past V8's
 * longest). Past the limit the body errors, the SDK's call fails, and the model call is
 * `model_failed` as any broken answer is.
 */

/**
 * Largest model answer read, in bytes. A structured answer of the largest output asked for
 * (a few thousand tokens) is tens of KB; a streamed answer's events repeat the text a little.
 */
export const MODEL_ANSWER_MAX_BYTES = 8 * 1024 * 1024;

/** The error a body past the limit fails with (the SDK wraps it). */
export class AnswerTooLarge extends Error {
  constructor(readonly maxBytes: number) {
    super(`the model's answer is larger than this service reads (${maxBytes} bytes)`);
    this.name = 'AnswerTooLarge';
  }
}

/** Bytes of `body` up to `maxBytes`; past them the stream errors with AnswerTooLarge and the source is cancelled. */
export function boundedBody(body: ReadableStream<Uint8Array>, maxBytes: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let read = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      read += value.byteLength;
      if (read > maxBytes) {
        controller.error(new AnswerTooLarge(maxBytes));
        await reader.cancel().catch(() => undefined);
        return;
      }
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

/** `fetchFn` with every answer's body bounded at `maxBytes` (see the file comment). */
export function boundedFetch(fetchFn: typeof fetch = fetch, maxBytes = MODEL_ANSWER_MAX_BYTES): typeof fetch {
  return async (input, init) => {
    const res = await fetchFn(input, init);
    if (!res.body) return res;
    return new Response(boundedBody(res.body, maxBytes), { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}
