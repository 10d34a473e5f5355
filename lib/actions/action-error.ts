/**
 * An error whose message is written for the administrator. Only this class (and the
 * platform's PlatformError) carries its message to the browser; anything else is logged
 * and replaced by a generic sentence. With `field`, the message lands next to that field.
 */
export class ActionError extends Error {
  readonly field: string | undefined;

  constructor(message: string, options?: { field?: string }) {
    super(message);
    this.name = "ActionError";
    this.field = options?.field;
  }
}

/** A sandbox application the page still shows was deleted meanwhile (the route and actions). */
export function noSuchSandboxApplication(appId: string): ActionError {
  return new ActionError(`There is no sandbox application "${appId}" any more. Reload the page.`);
}
