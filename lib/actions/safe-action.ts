import "server-only";
import { unstable_rethrow } from "next/navigation";
import { z } from "zod";
import { getAdminSession, type AdminSession } from "@/lib/auth/session";
import { PlatformError } from "@/lib/platform";
import { findUnstorableText, unstorableTextMessage } from "@/lib/schemas/text-values";
import { ActionError } from "./action-error";
import {
  genericErrorMessage,
  signedOutMessage,
  type ActionResult,
  type ValidationErrors,
} from "./action-result";

export { ActionError } from "./action-error";
export type { ActionResult } from "./action-result";

export { signedOutMessage } from "./action-result";

type Handler<S extends z.ZodType, T, C> = (input: z.output<S>, context: C) => Promise<T>;

function createAction<S extends z.ZodType, T, C>(
  schema: S,
  handler: Handler<S, T, C>,
  authorize: () => Promise<C | null>,
) {
  return async (input: z.input<S>): Promise<ActionResult<T>> => {
    try {
      // Authorize before parsing: a signed-out caller learns nothing about valid input.
      const context = await authorize();
      if (context === null) return { serverError: signedOutMessage };
      const unstorable = unstorableField(input);
      if (unstorable !== undefined) return { validationErrors: unstorable };
      const parsed = schema.safeParse(input);
      if (!parsed.success) return { validationErrors: z.flattenError(parsed.error) };
      return { data: await handler(parsed.data, context) };
    } catch (error) {
      // redirect() and notFound() work by throwing; they must reach Next.js untouched.
      unstable_rethrow(error);
      return toResult(error);
    }
  };
}

/**
 * The only way to write a console server action: the administrator session is checked
 * first, then the input is parsed with `schema`, then `handler` runs. Server actions are
 * public POST endpoints, so none may skip the check.
 */
export function adminAction<S extends z.ZodType, T>(
  schema: S,
  handler: Handler<S, T, { session: AdminSession }>,
) {
  return createAction(schema, handler, async () => {
    const session = await getAdminSession();
    return session ? { session } : null;
  });
}

/** For signing in only: the one action that cannot require a session. */
export function signedOutAction<S extends z.ZodType, T>(
  schema: S,
  handler: Handler<S, T, Record<string, never>>,
) {
  return createAction(schema, handler, async () => ({}));
}

/**
 * Text with a NUL or half a surrogate pair cannot be stored (nor sent to the platform) as it is:
 * refused before any schema, named by the top-level field it sits in.
 */
function unstorableField(input: unknown): ValidationErrors | undefined {
  const entries =
    input !== null && typeof input === "object" && !Array.isArray(input)
      ? Object.entries(input)
      : [["", input] as const];
  for (const [field, value] of entries) {
    if (findUnstorableText({ [field]: value }) === undefined) continue;
    const message = `${field ? `"${field}"` : "The input"} ${unstorableTextMessage}`;
    return field
      ? { formErrors: [], fieldErrors: { [field]: [message] } }
      : { formErrors: [message], fieldErrors: {} };
  }
  return undefined;
}

function toResult(
  error: unknown,
):
  | { validationErrors: { formErrors: string[]; fieldErrors: Record<string, string[]> } }
  | { serverError: string } {
  if (error instanceof ActionError) {
    return error.field
      ? { validationErrors: { formErrors: [], fieldErrors: { [error.field]: [error.message] } } }
      : { serverError: error.message };
  }
  if (error instanceof PlatformError) {
    const code = error.code === null ? "" : ` (code ${error.code})`;
    return { serverError: `The platform refused: ${error.message}${code}` };
  }
  console.error("[action] unexpected error:", error);
  return { serverError: genericErrorMessage };
}
