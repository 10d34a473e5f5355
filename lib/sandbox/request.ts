import type { Context } from "hono";
import type { z } from "zod";
import { firstPlatformIssue } from "@/lib/schemas/platform-errors";
import { ErrorCode, SandboxError } from "./errors";

/** Reads the body as a JSON object, or fails with 400403 as the contract says. */
export async function readJsonObject(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new SandboxError(ErrorCode.malformedBody, "The request body is not valid JSON.");
  }
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    throw new SandboxError(ErrorCode.malformedBody, "The request body must be a JSON object.");
  }
  return body as Record<string, unknown>;
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
