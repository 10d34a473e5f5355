import type { Context } from "hono";
import type { z } from "zod";
import { firstPlatformIssue } from "@/lib/schemas/platform-errors";
import { findUnstorableText } from "@/lib/schemas/text-values";
import { ErrorCode, SandboxError } from "./errors";

/** Reads the body as a JSON object, or fails with 400403 as the contract says. */
export async function readJsonObject(c: Context): Promise<Record<string, unknown>> {
  return parseJsonObject(await c.req.text());
}

/** A request body's text as a JSON object holding only storable strings (see refuseUnstorable). */
export function parseJsonObject(text: string): Record<string, unknown> {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new SandboxError(ErrorCode.malformedBody, "The request body is not valid JSON.");
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new SandboxError(ErrorCode.malformedBody, "The request body must be a JSON object.");
  }
  // Only a text holding a NUL, a surrogate or a \u escape of either can parse to a string that
  // cannot be stored; walking every string costs a 100-message migration about 60 µs.
  return mayHoldUnstorable.test(text)
    ? refuseUnstorable(body as Record<string, unknown>)
    : (body as Record<string, unknown>);
}

const mayHoldUnstorable = /[\u0000\uD800-\uDFFF]|\\u(?:0000|[dD][89a-fA-F])/;

/**
 * Refuses (400111, nothing stored) a body holding a string PostgreSQL cannot store as it is:
 * NUL, or an unpaired surrogate that would come back as U+FFFD (sandbox contract, "Hostile input").
 */
export function refuseUnstorable<T>(body: T): T {
  const found = findUnstorableText(body);
  if (found !== undefined) {
    throw new SandboxError(
      ErrorCode.invalidValue,
      `The request body holds a string with a NUL character or an unpaired surrogate: ${JSON.stringify(found.slice(0, 40))}.`,
    );
  }
  return body;
}

/** Validates input against a shared schema; the first problem becomes the platform's error. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = firstPlatformIssue(result.error, input);
  throw new SandboxError(issue.code, issue.message);
}

export function isMultipart(c: Context): boolean {
  return (c.req.header("content-type") ?? "").toLowerCase().startsWith("multipart/form-data");
}
