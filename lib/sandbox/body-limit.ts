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
    const body = c.req.raw.body;
    if (!body) return next();
    const limit = maxSize(c);
    const declared = c.req.raw.headers.has("transfer-encoding")
      ? undefined
      : Number(c.req.header("content-length") ?? Number.NaN);
    if (declared !== undefined && declared <= limit) return next();
    if (declared !== undefined && declared > maxDiscardedBytes) refuse(limit);

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
