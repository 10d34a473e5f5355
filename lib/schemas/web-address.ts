/**
 * Whether a text is a web address an app can load: `http://` or `https://` with a host. The
 * platform stores `profile_url`, `cover_url` and a file's `url` as any text of up to 2,048
 * characters (interface 4.3–4.5), so the sandbox accepts anything there, as the platform does;
 * the import validator and the mapping step use this to warn before "htp://broken" or
 * "C:\photos\ann.png" is stored as an image nobody can see.
 */
export function isWebAddress(value: string): boolean {
  const text = value.trim();
  // `new URL` reads "http:example.com" and "http:/x" as http too; an app would not.
  if (!/^https?:\/\/[^/\s]/i.test(text)) return false;
  try {
    const url = new URL(text);
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
  } catch {
    return false;
  }
}
