import type { z } from "zod";
import { PlatformError } from "./errors";

/**
 * Checks what a platform answered against the shared schema of the operation, so a platform
 * that answers something unexpected fails here, naming the operation and the field, rather
 * than as `undefined` deep in a page. Unknown extra fields are allowed and dropped.
 */
export function checkResponse<S extends z.ZodType>(
  operation: string,
  schema: S,
  body: unknown,
): z.output<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  const field = issue?.path.map(String).join(".") || "(body)";
  const problem =
    issue?.code === "invalid_type" ? `expected ${issue.expected}` : (issue?.message ?? "invalid");
  throw new PlatformError({
    kind: "invalid_response",
    status: 200,
    operation,
    field,
    message: `${operation}: the platform answered an unexpected "${field}" (${problem}).`,
  });
}
