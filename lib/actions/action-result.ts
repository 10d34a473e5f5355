/** The one shape every server action answers with. */
export type ActionResult<T> =
  { data: T } | { validationErrors: ValidationErrors } | { serverError: string };

export type ValidationErrors = {
  /** Problems with the form as a whole. */
  formErrors: string[];
  fieldErrors: Record<string, string[] | undefined>;
};

/** What a signed-out caller is told, by server actions and by the console's reads alike. */
export const signedOutMessage = "Your session has ended. Sign in again to continue.";

export const genericErrorMessage =
  "Something went wrong on our side. Try again; if it keeps failing, check the server log.";

/** The sentence to show for a failed result, or null when it succeeded. */
export function actionErrorMessage(result: ActionResult<unknown>): string | null {
  if ("serverError" in result) return result.serverError;
  if ("validationErrors" in result) {
    const { formErrors, fieldErrors } = result.validationErrors;
    const first =
      formErrors[0] ?? Object.values(fieldErrors).find((messages) => messages?.length)?.[0];
    return first ?? "Some values are not valid.";
  }
  return null;
}

/** The sentence for an action that never reached the console (a lost connection). */
export const unreachedMessage = "The request did not reach the console. Try again.";

/** A failed action, carrying the sentence to show. */
export class ActionFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ActionFailed";
  }
}

/**
 * The one way, outside forms, to turn an action's result into UI: its data, or an ActionFailed
 * with the sentence to show (a refusal's, or `unreachedMessage` when the call itself failed).
 * React Query's mutations show `error.message`; ConfirmDialog shows it in the dialog. Forms use
 * `applyActionResult` instead, to put each message beside its field.
 */
export async function unwrap<T>(call: Promise<ActionResult<T>>): Promise<T> {
  let result: ActionResult<T>;
  try {
    result = await call;
  } catch {
    throw new ActionFailed(unreachedMessage);
  }
  if ("data" in result) return result.data;
  throw new ActionFailed(actionErrorMessage(result) ?? "The request failed.");
}

/** The sentence for any error a mutation ended with. */
export function failureSentence(error: unknown): string {
  return error instanceof ActionFailed ? error.message : unreachedMessage;
}

type SetError = (name: never, error: { type: string; message: string }) => void;

/**
 * Puts a failed result into a react-hook-form form: field errors next to their fields,
 * everything else under `root.server`. Returns true when the result was a success.
 */
export function applyActionResult<T>(
  result: ActionResult<T>,
  setError: SetError,
  fieldNames: readonly string[],
): result is { data: T } {
  if ("data" in result) return true;
  const set = setError as unknown as (
    name: string,
    error: { type: string; message: string },
  ) => void;
  if ("validationErrors" in result) {
    let unplaced = [...result.validationErrors.formErrors];
    for (const [field, messages] of Object.entries(result.validationErrors.fieldErrors)) {
      if (!messages?.length) continue;
      if (fieldNames.includes(field)) set(field, { type: "server", message: messages[0]! });
      else unplaced = [...unplaced, ...messages];
    }
    if (unplaced.length > 0) set("root.server", { type: "server", message: unplaced.join(" ") });
    return false;
  }
  set("root.server", { type: "server", message: result.serverError });
  return false;
}
