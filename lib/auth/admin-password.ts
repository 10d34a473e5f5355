import "server-only";
import { createHash, timingSafeEqual } from "node:crypto";
import type { Database } from "@/lib/db/client";
import { env } from "@/lib/env";
import { boxed } from "@/lib/text/boxed";
import { insertSettingOnce, readSetting, settingKeys } from "./console-settings";
import { generatePassword, hashPassword, verifyPassword } from "./password";

/**
 * With no ADMIN_PASSWORD, the first start generates a password, keeps only its scrypt hash and
 * prints the password once. Later starts find the hash and print nothing.
 */
export async function ensureAdminPassword(db: Database): Promise<void> {
  if (env().ADMIN_PASSWORD) return;
  if (await readSetting(db, settingKeys.adminPasswordHash)) return;
  const password = generatePassword();
  const { created } = await insertSettingOnce(
    db,
    settingKeys.adminPasswordHash,
    await hashPassword(password),
  );
  if (created) console.log(passwordNotice(password));
}

export async function verifyAdminPassword(db: Database, candidate: string): Promise<boolean> {
  const configured = env().ADMIN_PASSWORD;
  if (configured) {
    // Comparing digests keeps the comparison constant-time whatever the lengths.
    const digest = (text: string) => createHash("sha256").update(text.normalize("NFKC")).digest();
    return timingSafeEqual(digest(candidate), digest(configured));
  }
  await ensureAdminPassword(db);
  const stored = await readSetting(db, settingKeys.adminPasswordHash);
  return stored ? verifyPassword(candidate, stored) : false;
}

function passwordNotice(password: string): string {
  return boxed([
    "Switchboard: administrator password generated (shown only this once)",
    "",
    `    ${password}`,
    "",
    "Only its hash is stored. To choose your own, set ADMIN_PASSWORD.",
    "Lost it? Delete the admin_password_hash row of console_settings and restart.",
  ]);
}
