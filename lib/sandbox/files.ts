import { randomBytes } from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { sandboxFiles } from "@/lib/db/schema";
import { PROFILE_FILE_MAX_BYTES } from "@/lib/schemas/users";
import { applicationBaseUrl, type SandboxContext } from "./context";
import { ErrorCode, SandboxError } from "./errors";

/** JPG or PNG by content (magic bytes), whatever the file name or declared type says. */
export function detectImageType(bytes: Uint8Array): "image/jpeg" | "image/png" | undefined {
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff)
    return "image/jpeg";
  const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length >= png.length && png.every((byte, i) => bytes[i] === byte)) return "image/png";
  return undefined;
}

/**
 * Checks an uploaded image (`profile_file`, `cover_file`) without storing it, so a request
 * that fails later validation writes nothing. Returns what `storeImage` needs.
 */
export async function readImage(
  field: string,
  value: unknown,
): Promise<{ bytes: Uint8Array; contentType: string }> {
  if (!(value instanceof File)) {
    throw new SandboxError(ErrorCode.wrongType, `"${field}" must be a file.`);
  }
  if (value.size > PROFILE_FILE_MAX_BYTES) {
    throw new SandboxError(ErrorCode.tooLong, `"${field}" is too large: at most 5 MB.`);
  }
  const bytes = new Uint8Array(await value.arrayBuffer());
  const contentType = detectImageType(bytes);
  if (!contentType) {
    throw new SandboxError(ErrorCode.invalidValue, `"${field}" must be a JPG or PNG image.`);
  }
  return { bytes, contentType };
}

/**
 * Stores a checked image and returns the public URL the sandbox serves it from. Pass a
 * transaction as `db` when the resource that points at the image may still be refused.
 */
export async function storeImage(
  c: SandboxContext,
  image: { bytes: Uint8Array; contentType: string },
  db: Database = c.get("db"),
): Promise<string> {
  const id = randomBytes(12).toString("hex");
  await db
    .insert(sandboxFiles)
    .values({ id, appId: c.get("app").id, contentType: image.contentType, bytes: image.bytes });
  return `${applicationBaseUrl(c)}/files/${id}`;
}

/** Loads a stored image for the public file route. */
export async function loadImage(c: SandboxContext, id: string) {
  const [file] = await c
    .get("db")
    .select()
    .from(sandboxFiles)
    .where(and(eq(sandboxFiles.id, id), eq(sandboxFiles.appId, c.get("app").id)))
    .limit(1);
  return file;
}
