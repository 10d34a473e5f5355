import "server-only";
import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { consoleSettings } from "@/lib/db/schema";

export const settingKeys = {
  adminPasswordHash: "admin_password_hash",
  sessionSecret: "session_secret",
} as const;

export async function readSetting(db: Database, key: string): Promise<string | undefined> {
  const [row] = await db
    .select()
    .from(consoleSettings)
    .where(eq(consoleSettings.key, key))
    .limit(1);
  return row?.value;
}

/**
 * Stores `value` unless the key already has one, and returns what is stored. `created` says
 * whether ours won, so only the process that made a value announces it.
 */
export async function insertSettingOnce(
  db: Database,
  key: string,
  value: string,
): Promise<{ value: string; created: boolean }> {
  const inserted = await db
    .insert(consoleSettings)
    .values({ key, value })
    .onConflictDoNothing()
    .returning();
  if (inserted.length > 0) return { value, created: true };
  const stored = await readSetting(db, key);
  if (stored === undefined) throw new Error(`Console setting ${key} could not be stored`);
  return { value: stored, created: false };
}

/** The HMAC key for session cookies, generated once per installation. */
export async function getSessionSecret(db: Database): Promise<string> {
  const { value } = await insertSettingOnce(
    db,
    settingKeys.sessionSecret,
    randomBytes(32).toString("base64url"),
  );
  return value;
}
