/** What one upload chunk may hold (a server action's body stays well under Next.js's limit). */
export const MAX_CHUNK_ROWS = 5_000;
export const MAX_CHUNK_BYTES = 1024 * 1024;
/** Look-ups per request the platform answers (`GET /v3/users?user_ids=`). */
export const LOOKUP_BATCH = 100;
