type HeaderReader = { get(name: string): string | null };

/**
 * The client's address as Next.js hands it on: `next start` fills `x-forwarded-for` from the
 * socket unless a proxy already set it. The last entry is the one the nearest proxy added.
 */
export function clientAddress(headers: HeaderReader): string {
  const forwarded = headers.get("x-forwarded-for");
  const last = forwarded?.split(",").at(-1)?.trim();
  return last || headers.get("x-real-ip")?.trim() || "unknown";
}

/** Whether the browser reached us over https (directly or through a TLS-terminating proxy). */
export function isHttps(headers: HeaderReader): boolean {
  return headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";
}
