import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/**
 * How a remote target's API token is kept at rest. With a key (SWITCHBOARD_SECRET_KEY, 32
 * bytes) it is sealed with AES-256-GCM: `gcm.<key id>.<iv>.<ciphertext>.<tag>`, base64url,
 * a fresh 12-byte IV per seal, the key id (a hash of the key, not the key) telling a token
 * sealed with another key from a damaged one. Without a key it is kept as `plain.<token>`,
 * readable by anyone who can read the database; the Settings page says so.
 */

export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SecretBoxError";
  }
}

const encoding = "base64url";

export function keyId(key: Uint8Array): string {
  return createHash("sha256")
    .update("switchboard target key")
    .update(key)
    .digest("hex")
    .slice(0, 8);
}

export function sealSecret(secret: string, key: Uint8Array | undefined): string {
  if (!key) return `plain.${Buffer.from(secret, "utf8").toString(encoding)}`;
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return [
    "gcm",
    keyId(key),
    iv.toString(encoding),
    ciphertext.toString(encoding),
    cipher.getAuthTag().toString(encoding),
  ].join(".");
}

export function openSecret(sealed: string, key: Uint8Array | undefined): string {
  const [scheme, ...parts] = sealed.split(".");
  if (scheme === "plain" && parts.length === 1)
    return Buffer.from(parts[0]!, encoding).toString("utf8");
  if (scheme !== "gcm" || parts.length !== 4)
    throw new SecretBoxError("The stored token is not in a form this console knows.");
  const [sealedKeyId, iv, ciphertext, tag] = parts as [string, string, string, string];
  if (!key)
    throw new SecretBoxError(
      "The stored token was encrypted with SWITCHBOARD_SECRET_KEY, which is not set now.",
    );
  if (sealedKeyId !== keyId(key))
    throw new SecretBoxError(
      "The stored token was encrypted with another SWITCHBOARD_SECRET_KEY than the one set now.",
    );
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, encoding));
    decipher.setAuthTag(Buffer.from(tag, encoding));
    return Buffer.concat([
      decipher.update(Buffer.from(ciphertext, encoding)),
      decipher.final(),
    ]).toString("utf8");
  } catch {
    throw new SecretBoxError("The stored token is damaged: it does not decrypt with this key.");
  }
}

/** Whether a sealed value is encrypted (a plain one is shown as such on the Settings page). */
export function isEncrypted(sealed: string): boolean {
  return sealed.startsWith("gcm.");
}
