const fallback = "/";
const probeOrigin = "http://switchboard.invalid";

/**
 * The `next` parameter of /sign-in, kept only when it is a path on this site. Anything else
 * (`//evil.example`, `/\evil.example`, `https://...`, `javascript:`) becomes "/", so the
 * sign-in page cannot be used to bounce an administrator to another origin.
 */
export function safeNextPath(next: string | null | undefined): string {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\"))
    return fallback;
  // Control characters (tabs, newlines) are dropped by URL parsing and could hide a scheme.
  if (/[\u0000-\u001f\u007f]/.test(next)) return fallback;
  let url: URL;
  try {
    url = new URL(next, probeOrigin);
  } catch {
    return fallback;
  }
  if (url.origin !== probeOrigin) return fallback;
  // Signing in to land on the sign-in page again would look like a failure.
  if (url.pathname === "/sign-in") return fallback;
  const path = `${url.pathname}${url.search}${url.hash}`;
  // Dot segments can collapse into a protocol-relative URL: "/..//evil.example" -> "//evil.example".
  return path.startsWith("//") ? fallback : path;
}

/** Where to send someone who is not signed in and wanted `next`. */
export function signInPath(next?: string): string {
  const target = next ? safeNextPath(next) : fallback;
  return target === fallback ? "/sign-in" : `/sign-in?next=${encodeURIComponent(target)}`;
}
