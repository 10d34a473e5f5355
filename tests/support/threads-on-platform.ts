import type { ThreadsFile } from "../fixtures/imports";

/** A message as the platform lists it with replies and reactions: what the check reads. */
export type ListedMessage = {
  message_id: number;
  message: string;
  created_at: number;
  parent_message_id?: number | null;
  reactions?: ReadonlyArray<{ key: string; user_ids: readonly string[] }>;
};

/**
 * One page of a channel's messages from `messageTs` on (that time itself only when `include`),
 * up to `THREADS_PAGE` of them, replies and reactions included: through the platform client in
 * API tests, over HTTP in browser tests.
 */
export type ListChannelPage = (
  channelUrl: string,
  messageTs: number,
  include: boolean,
) => Promise<readonly ListedMessage[]>;

export const THREADS_PAGE = 200;

export type ThreadsAsStored = {
  /** The file's messages found, each counted once. */
  messages: number;
  /** Replies found under their root. */
  replies: number;
  /** Reactions (one user's one key) found. */
  reactions: number;
  /** What is wrong, one sentence each: stored twice, under the wrong root, reactions that differ. */
  problems: string[];
};

/**
 * What the platform holds of a threads file's channels: each message once, each reply under its
 * thread's root (the root's platform message id), each message's reactions exactly as the file
 * has them. Plain (no test runner), so each layer asserts on `problems` with its own `expect`.
 */
export async function threadsAsStored(
  list: ListChannelPage,
  file: ThreadsFile,
  channels: readonly string[],
): Promise<ThreadsAsStored> {
  const stored: ThreadsAsStored = { messages: 0, replies: 0, reactions: 0, problems: [] };
  const sourceOf = new Map(file.rows.map((row) => [row[2]!, row[4]!]));
  for (const url of channels) {
    const bySource = new Map<
      string,
      { id: number; parent: number; reactions: Map<string, string[]> }
    >();
    for (let messageTs = 0, include = true; ; include = false) {
      const page = await list(url, messageTs, include);
      for (const message of page) {
        const id = sourceOf.get(message.message);
        if (id === undefined)
          stored.problems.push(`${url}: "${message.message}" is not in the file`);
        else if (bySource.has(id)) stored.problems.push(`${id} is stored twice`);
        else
          bySource.set(id, {
            id: message.message_id,
            parent: message.parent_message_id ?? 0,
            reactions: new Map(
              (message.reactions ?? []).map((r) => [r.key, [...r.user_ids].sort()]),
            ),
          });
      }
      if (page.length < THREADS_PAGE) break;
      messageTs = page.at(-1)!.created_at;
    }
    stored.messages += bySource.size;
    for (const [id, entry] of bySource) {
      const root = file.roots.get(id);
      const rootId = root === undefined ? 0 : (bySource.get(root)?.id ?? -1);
      if (entry.parent !== rootId)
        stored.problems.push(`${id} is under message ${entry.parent}, not ${rootId} (${root})`);
      else if (root !== undefined) stored.replies++;
      const wanted = new Map(
        [...(file.reactions.get(id) ?? [])].map(([key, users]) => [key, [...users].sort()]),
      );
      if (!sameReactions(entry.reactions, wanted))
        stored.problems.push(
          `${id} has reactions ${JSON.stringify([...entry.reactions])}, not ${JSON.stringify([...wanted])}`,
        );
      else for (const users of wanted.values()) stored.reactions += users.length;
    }
  }
  return stored;
}

function sameReactions(a: Map<string, string[]>, b: Map<string, string[]>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, users] of a) if (b.get(key)?.join("\n") !== users.join("\n")) return false;
  return true;
}
