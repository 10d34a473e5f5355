import { env } from "@/lib/env";

type HeaderReader = { get(name: string): string | null };

/**
 * `https://host:port` of an incoming request, for links the browser will follow and for the
 * sandbox's own addresses: the proxy's `x-forwarded-*` headers first (their first entry),
 * then the `Host` header, then `fallback` (a Request's own URL).
 */
export function requestOrigin(headers: HeaderReader, fallback?: string): string {
  const first = (name: string) => headers.get(name)?.split(",")[0]?.trim() || undefined;
  // The fallback is there on every request: it is parsed only when the headers do not say.
  const host =
    first("x-forwarded-host") ??
    first("host") ??
    (fallback ? new URL(fallback).host : undefined) ??
    "localhost";
  const scheme = fallback ? /^([a-z][a-z0-9+.-]*):/i.exec(fallback)?.[1]?.toLowerCase() : undefined;
  const proto = first("x-forwarded-proto") ?? scheme ?? "http";
  return `${proto}://${host}`;
}

/**
 * `{origin}/sandbox/{application id}`: the base URL of an embedded sandbox application, its
 * chat and calls APIs alike, as a client at `origin` reaches it. The sandbox's routes (its
 * files' URLs), its settings page and the console's targets all build it here.
 */
export function sandboxApplicationUrl(origin: string, appId: string): string {
  return `${origin}/sandbox/${encodeURIComponent(appId)}`;
}

/** The console's own origin: the request's when in one, else the local address it serves on. */
export async function consoleOrigin(): Promise<string> {
  try {
    const { headers } = await import("next/headers");
    const incoming = await headers();
    if (incoming.get("host")) return requestOrigin(incoming);
  } catch {
    // Outside a request (background jobs, tests).
  }
  return `http://127.0.0.1:${env().PORT}`;
}
