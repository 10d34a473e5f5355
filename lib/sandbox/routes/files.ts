import type { SandboxRouter } from "../context";
import { ErrorCode, SandboxError } from "../errors";
import { loadImage } from "../files";

/** Serves stored profile images and covers; public, as a CDN URL would be. */
export function registerFileRoutes(api: SandboxRouter): void {
  api.get("/files/:fileId", async (c) => {
    const file = await loadImage(c, c.req.param("fileId"));
    if (!file) throw new SandboxError(ErrorCode.notFound, "No such file.", 404);
    return new Response(Buffer.from(file.bytes), {
      headers: {
        "content-type": file.contentType,
        "cache-control": "public, max-age=31536000, immutable",
        "x-content-type-options": "nosniff",
      },
    });
  });
}
