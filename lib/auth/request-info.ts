/** Set by the request guard from the socket (and trusted proxies); a client's own value is dropped. */
export const clientAddressHeader = "x-switchboard-client-address";

type HeaderReader = { get(name: string): string | null };

/**
 * The client's address, as the request guard (lib/server/request-guard.ts) resolved it from
 * the socket and, behind TRUSTED_PROXIES only, X-Forwarded-For. A client's own
 * X-Forwarded-For is never read here: any client can write one.
 */
export function clientAddress(headers: HeaderReader): string {
  return headers.get(clientAddressHeader)?.trim() || "unknown";
}

/** Whether the browser reached us over https (directly or through a TLS-terminating proxy). */
export function isHttps(headers: HeaderReader): boolean {
  return headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
}
