import { and, eq, sql, type SQL } from "drizzle-orm";
import type { Database } from "@/lib/db/client";
import { sandboxUsers } from "@/lib/db/schema";
import { METADATA_MAX_ITEMS } from "@/lib/schemas/users";
import { userMetadataSchema } from "@/lib/schemas/sandbox-storage";
import { userNotFound } from "./lookups";
import { ErrorCode, SandboxError } from "./errors";

type Metadata = Record<string, string>;

/**
 * The user metadata family (`/v3/users/{user_id}/metadata[/{key}]`). Every change is one
 * UPDATE whose WHERE holds its precondition (keys absent, keys present, item cap), so
 * concurrent changes cannot together break one; when it matches no row, the reason is
 * looked up afterwards for the error.
 */

export async function getUserMetadata(
  db: Database,
  appId: string,
  userId: string,
): Promise<Metadata> {
  return (await readMetadata(db, appId, userId)) ?? throwUserNotFound(userId);
}

export async function getUserMetadataItem(
  db: Database,
  appId: string,
  userId: string,
  key: string,
): Promise<Metadata> {
  const metadata = await getUserMetadata(db, appId, userId);
  if (!Object.hasOwn(metadata, key)) throw itemNotFound(key);
  return { [key]: metadata[key]! };
}

/** Adds items; a key that exists already refuses the whole request (400202). Answers the items added. */
export async function createUserMetadata(
  db: Database,
  appId: string,
  userId: string,
  items: Metadata,
): Promise<Metadata> {
  const keys = Object.keys(items);
  await change(
    db,
    appId,
    userId,
    items,
    sql`not jsonb_exists_any(${sandboxUsers.metadata}, ${textArray(keys)})`,
    async (stored) => {
      const taken = keys.find((key) => Object.hasOwn(stored, key));
      if (taken !== undefined)
        throw new SandboxError(
          ErrorCode.alreadyExists,
          `The metadata key "${taken}" already exists.`,
        );
    },
  );
  return items;
}

/**
 * Updates items. Without `upsert` every key must exist (400201 naming the first missing one);
 * with it, missing keys are added. Answers the updated items only.
 */
export async function updateUserMetadata(
  db: Database,
  appId: string,
  userId: string,
  items: Metadata,
  upsert: boolean,
): Promise<Metadata> {
  const keys = Object.keys(items);
  const precondition =
    upsert || keys.length === 0
      ? undefined
      : sql`jsonb_exists_all(${sandboxUsers.metadata}, ${textArray(keys)})`;
  await change(db, appId, userId, items, precondition, async (stored) => {
    const missing = upsert ? undefined : keys.find((key) => !Object.hasOwn(stored, key));
    if (missing !== undefined) throw itemNotFound(missing);
  });
  return items;
}

export async function deleteUserMetadataItem(
  db: Database,
  appId: string,
  userId: string,
  key: string,
): Promise<void> {
  const [row] = await db
    .update(sandboxUsers)
    .set({ metadata: sql`${sandboxUsers.metadata} - ${key}::text` })
    .where(and(userKey(appId, userId), sql`jsonb_exists(${sandboxUsers.metadata}, ${key}::text)`))
    .returning({ userId: sandboxUsers.userId });
  if (row) return;
  await getUserMetadata(db, appId, userId);
  throw itemNotFound(key);
}

export async function deleteAllUserMetadata(
  db: Database,
  appId: string,
  userId: string,
): Promise<void> {
  const [row] = await db
    .update(sandboxUsers)
    .set({ metadata: {} })
    .where(userKey(appId, userId))
    .returning({ userId: sandboxUsers.userId });
  if (!row) throw userNotFound(userId);
}

/** Merges `items` in when `precondition` holds and the result stays within the item cap. */
async function change(
  db: Database,
  appId: string,
  userId: string,
  items: Metadata,
  precondition: SQL | undefined,
  explain: (stored: Metadata) => Promise<void>,
): Promise<void> {
  const merged = sql`${sandboxUsers.metadata} || ${JSON.stringify(items)}::jsonb`;
  const [row] = await db
    .update(sandboxUsers)
    .set({ metadata: merged })
    .where(
      and(
        userKey(appId, userId),
        precondition,
        sql`(select count(*) from jsonb_object_keys(${merged})) <= ${METADATA_MAX_ITEMS}`,
      ),
    )
    .returning({ userId: sandboxUsers.userId });
  if (row) return;
  await explain(await getUserMetadata(db, appId, userId));
  throw new SandboxError(
    ErrorCode.invalidValue,
    `"metadata" has too many items: a user has at most ${METADATA_MAX_ITEMS} metadata items.`,
  );
}

async function readMetadata(
  db: Database,
  appId: string,
  userId: string,
): Promise<Metadata | undefined> {
  const [row] = await db
    .select({ metadata: sandboxUsers.metadata })
    .from(sandboxUsers)
    .where(userKey(appId, userId))
    .limit(1);
  return row && userMetadataSchema.parse(row.metadata);
}

function userKey(appId: string, userId: string) {
  return and(eq(sandboxUsers.appId, appId), eq(sandboxUsers.userId, userId));
}

function textArray(values: string[]): SQL {
  return sql`array[${sql.join(
    values.map((value) => sql`${value}`),
    sql`, `,
  )}]::text[]`;
}

function itemNotFound(key: string): SandboxError {
  return new SandboxError(ErrorCode.notFound, `No metadata item with key "${key}".`);
}

function throwUserNotFound(userId: string): never {
  throw userNotFound(userId);
}
