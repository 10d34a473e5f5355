import type { Context, MiddlewareHandler } from "hono";

/** The most of a refused body read and discarded before answering; a larger one is answered at once. */
const maxDiscardedBytes = 64 * 1024 * 1024;

/**
 * Refuses a body larger than `maxSize(c)` bytes by calling `refuse`, which throws. The refused
 * body is first read to its end and discarded (up to 64 MB): Node closes a `Connection: close`
 * socket as soon as the answer is written, so answering early makes a client that is still
 * writing see a broken pipe instead of the 413. Hono's own `bodyLimit` answers early.
 */
export function limitBody(
  maxSize: (c: Context) => number,
  refuse: (maxSize: number) => never,
): MiddlewareHandler {
  return async (c, next) => {
    // Decided from the headers first: touching `c.req.raw.body` makes the Node adapter build
    // a web stream for every request, a large share of a small request's cost.
    const chunked = c.req.raw.headers.has("transfer-encoding");
    const length = c.req.header("content-length");
    if (!chunked && length === undefined) return next();
    const limit = maxSize(c);
    const declared = chunked ? undefined : Number(length);
    if (declared !== undefined && declared <= limit) return next();
    if (declared !== undefined && declared > maxDiscardedBytes) refuse(limit);
    const body = c.req.raw.body;
    if (!body) return next();

    const chunks: Uint8Array[] = [];
    let size = 0;
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size <= limit) chunks.push(value);
      else if (size > maxDiscardedBytes) {
        await reader.cancel();
        break;
      }
    }
    if (size > limit) refuse(limit);
    c.req.raw = new Request(c.req.raw, { body: Buffer.concat(chunks) });
    return next();
  };
}
