import { ErrorCode, SandboxError } from "./errors";

/**
 * Page tokens of the lists kept in creation order: the position (`seq`) after the page's last
 * item, named by its list, so items created meanwhile never shift a page and a token of
 * another list is refused. Clients send it back as `token` (or the older `next`).
 */
export function encodePageToken(list: string, seq: number): string {
  return Buffer.from(`${list}:${seq}`).toString("base64url");
}

/** The position a token holds; 0 for "" (the first page). A token this list did not issue is 400111. */
export function decodePageToken(list: string, token: string): number {
  if (token === "") return 0;
  const text = Buffer.from(token, "base64url").toString("utf8");
  const position = text.startsWith(`${list}:`) ? text.slice(list.length + 1) : "";
  if (!/^\d{1,15}$/.test(position))
    throw new SandboxError(ErrorCode.invalidValue, '"token" is not a token this list returned.');
  return Number(position);
}

/** Reads one more row than the page holds, to know whether another page follows. */
export async function pageBySeq<Row extends { seq: number }>(
  list: string,
  query: { limit: number; token?: string; next?: string },
  select: (afterSeq: number, limit: number) => Promise<Row[]>,
): Promise<{ page: Row[]; next: string }> {
  const rows = await select(
    decodePageToken(list, query.token ?? query.next ?? ""),
    query.limit + 1,
  );
  const page = rows.slice(0, query.limit);
  const last = page.at(-1);
  return { page, next: rows.length > query.limit && last ? encodePageToken(list, last.seq) : "" };
}
