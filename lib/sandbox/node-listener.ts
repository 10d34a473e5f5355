import { getRequestListener, RequestError } from "@hono/node-server";
import type { SandboxApp } from "./app";
import { ErrorCode, SandboxError, errorResponse } from "./errors";

/**
 * The sandbox as a Node request listener. A request the adapter cannot turn into a web
 * Request (an invalid Host header, a backslash in its path) gets the platform's JSON error
 * body instead of the adapter's bare 400. `hostname` stands in for the Host header an HTTP/1.0
 * request may leave out.
 */
export function sandboxRequestListener(app: SandboxApp, hostname?: string) {
  return getRequestListener(app.fetch, {
    hostname,
    errorHandler: (error) => {
      if (error instanceof RequestError) {
        const message = `The request cannot be served: ${error.message}.`;
        return errorResponse(new SandboxError(ErrorCode.invalidValue, message));
      }
      console.error("[sandbox] request failed:", error);
      return errorResponse(new SandboxError(ErrorCode.internal, "Unexpected server error."));
    },
  });
}
