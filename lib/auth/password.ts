import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";

// OWASP's scrypt floor (N=2^17, r=8, p=1) costs ~128 MiB per hash; 2^15 keeps sign-in
// fast on a small shared box while still making offline guessing expensive.
const params = { N: 2 ** 15, r: 8, p: 1, keyLength: 32 } as const;

function deriveKey(
  password: string,
  salt: Buffer,
  options: ScryptOptions,
  keyLength: number,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize("NFKC"),
      salt,
      keyLength,
      { ...options, maxmem: 256 * 1024 * 1024 },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

/** `scrypt$N$r$p$salt$hash` (base64url), so the parameters can be raised later without breaking old hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await deriveKey(password, salt, params, params.keyLength);
  return [
    "scrypt",
    params.N,
    params.r,
    params.p,
    salt.toString("base64url"),
    key.toString("base64url"),
  ].join("$");
}

/** Constant-time check of a password against a stored hash; a malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, saltText, keyText] = stored.split("$");
  if (scheme !== "scrypt" || !saltText || !keyText) return false;
  const N = Number(n);
  const options = { N, r: Number(r), p: Number(p) };
  if (![N, options.r, options.p].every((value) => Number.isSafeInteger(value) && value > 0))
    return false;
  const expected = Buffer.from(keyText, "base64url");
  if (expected.length < 16) return false;
  const actual = await deriveKey(
    password,
    Buffer.from(saltText, "base64url"),
    options,
    expected.length,
  );
  return timingSafeEqual(actual, expected);
}

/** A password for the first start: 20 characters from an alphabet without look-alikes (0/O, 1/l/I). */
export function generatePassword(length = 20): string {
  const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
  // 256 is not a multiple of the alphabet size: drop bytes past the last full multiple to avoid bias.
  const limit = 256 - (256 % alphabet.length);
  let password = "";
  while (password.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit && password.length < length) password += alphabet[byte % alphabet.length];
    }
  }
  return password;
}
