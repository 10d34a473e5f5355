import { createHash, createHmac, timingSafeEqual } from "node:crypto";

export const sessionCookieName = "switchboard_session";

export type SessionCookie = {
  /** The random session id; the database keeps only its hash. */
  id: string;
  expiresAt: Date;
};

function signature(payload: string, secret: string): string {
  return createHmac("sha256", secret).update(payload).digest("base64url");
}

/** `id.expiresAtMs.hmac`: the expiry is signed too, so a stolen cookie cannot be stretched. */
export function signSessionCookie(cookie: SessionCookie, secret: string): string {
  const payload = `${cookie.id}.${cookie.expiresAt.getTime()}`;
  return `${payload}.${signature(payload, secret)}`;
}

/** The cookie's session, or null when it is malformed, tampered with, signed with another secret or expired. */
export function verifySessionCookie(
  value: string | undefined,
  secret: string,
  now = new Date(),
): SessionCookie | null {
  if (!value) return null;
  const parts = value.split(".");
  if (parts.length !== 3) return null;
  const [id, expiresText, given] = parts as [string, string, string];
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(id) || !/^\d{1,15}$/.test(expiresText)) return null;
  const expected = Buffer.from(signature(`${id}.${expiresText}`, secret));
  const actual = Buffer.from(given);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return null;
  const expiresAt = new Date(Number(expiresText));
  if (expiresAt.getTime() <= now.getTime()) return null;
  return { id, expiresAt };
}

/** What `admin_sessions.id` stores: a leaked database does not hand out live cookies. */
export function hashSessionId(id: string): string {
  return createHash("sha256").update(id).digest("hex");
}
