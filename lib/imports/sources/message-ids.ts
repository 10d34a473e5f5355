import { problem, repeatedId, unreadableItem } from "./problems";
import {
  describeLocation,
  type MessageRecord,
  type ProblemRecord,
  type SourceLocation,
} from "./types";

/**
 * One channel's message ids while it is read: a repeated id is a duplicate (the second is
 * left out), and a reply whose root never turns up in the channel is counted, so the reader
 * can say so when the channel ends. Only the channel being read is held.
 */
export class ChannelMessageIds {
  private readonly ids = new Set<string>();
  /** Roots named by replies, with the first reply that named each. */
  private readonly roots = new Map<string, { count: number; first: SourceLocation }>();

  constructor(private readonly channelName: string) {}

  /**
   * The message, its id now taken (and its root noted, for a reply); or, for a reason why it
   * cannot be one (`why`) or an id already read, the problem to report, the message left out.
   */
  admit(message: MessageRecord | string, source: SourceLocation): MessageRecord | ProblemRecord {
    if (typeof message === "string") return unreadableItem(source, message);
    if (this.ids.has(message.id))
      return repeatedId(source, `message ${message.id} of ${this.channelName}`);
    this.ids.add(message.id);
    if (message.parentId !== null) this.noteReply(message.parentId, source);
    return message;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  private noteReply(rootId: string, source: SourceLocation): void {
    const root = this.roots.get(rootId);
    if (root) root.count++;
    else this.roots.set(rootId, { count: 1, first: source });
  }

  /** The replies whose root is not in the channel, one problem per missing root. */
  missingRoots(): ProblemRecord[] {
    const problems: ProblemRecord[] = [];
    for (const [rootId, { count, first }] of this.roots) {
      if (this.ids.has(rootId)) continue;
      const replies = count === 1 ? "1 reply" : `${count.toLocaleString("en-US")} replies`;
      problems.push(
        problem(
          "missing-root",
          `${replies} in ${this.channelName} (the first: ${describeLocation(first)}) answer message ${rootId}, which is not in the export (deleted, or before the export's date range). They are kept, without their root.`,
          first,
        ),
      );
    }
    return problems;
  }
}
