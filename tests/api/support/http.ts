import { inject } from "vitest";

export type ApiResponse<T = Record<string, unknown>> = {
  status: number;
  headers: Headers;
  body: T;
};

export type Target = { baseUrl: string; token: string };

/** The shared sandbox started by the global setup. */
export function sharedSandbox(): Target & { origin: string; appId: string } {
  return inject("sandbox");
}

/** Sends a request to a sandbox application and parses the JSON answer. */
export async function call<T = Record<string, unknown>>(
  target: Target,
  method: string,
  pathname: string,
  body?: unknown,
  init: { headers?: Record<string, string>; rawBody?: BodyInit } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { "Api-Token": target.token, ...init.headers };
  let payload: BodyInit | undefined = init.rawBody;
  if (body !== undefined) {
    headers["content-type"] ??= "application/json";
    payload = JSON.stringify(body);
  }
  const response = await fetch(`${target.baseUrl}${pathname}`, { method, headers, body: payload });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Leave non-JSON bodies as text for the assertion to show.
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}

/** A unique id for this test run, so tests sharing a sandbox never collide. */
export function uniqueId(prefix = "u"): string {
  return `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

/** Asserts the platform's error body; returns it for further checks. */
export function expectPlatformError(
  response: ApiResponse,
  status: number,
  code: number,
): { message: string; code: number; error: true } {
  const body = response.body as { message: string; code: number; error: true };
  if (
    response.status !== status ||
    body?.code !== code ||
    body?.error !== true ||
    typeof body.message !== "string"
  ) {
    throw new Error(
      `expected HTTP ${status} / code ${code}, got HTTP ${response.status}: ${JSON.stringify(response.body)}`,
    );
  }
  return body;
}
