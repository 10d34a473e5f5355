import { describe, expect, it } from "vitest";
import { editedValues, updateStillToMake } from "@/lib/imports/jobs/replies/edits";
import type { Message } from "@/lib/platform/types";
import { listedMessage } from "@/tests/fixtures/messages";

const message = (fields: Partial<Message> = {}): Message =>
  listedMessage({ message_id: 7, message: "Here is the roadmap", ...fields });

const user = (user_id: string) => ({ user_id, nickname: user_id, profile_url: "" });

describe("a newer export's edit of a message an earlier import sent", () => {
  it("takes the row's values of the fields the edit changed, a field left out as the platform shows it", () => {
    const body = { message_type: "MESG", message: "Here is the roadmap, by Friday", user_id: "u1" };
    expect(editedValues(body, ["message", "mentioned_user_ids"])).toEqual({
      message: "Here is the roadmap, by Friday",
      mentioned_user_ids: [],
    });
    expect(editedValues({ ...body, mentioned_user_ids: ["u2"], data: "x" }, ["data"])).toEqual({
      data: "x",
    });
    // Fields the update cannot change are never among them.
    expect(editedValues(body, ["user_id", "url"])).toEqual({});
  });

  it("updates only what the platform's message does not hold yet, with the message's own type", () => {
    const wanted = { message: "Here is the roadmap, by Friday", mentioned_user_ids: ["u2", "u3"] };
    expect(updateStillToMake(wanted, message())).toEqual({
      message_type: "MESG",
      message: "Here is the roadmap, by Friday",
      mentioned_user_ids: ["u2", "u3"],
    });
    expect(
      updateStillToMake(wanted, message({ mentioned_users: [user("u3"), user("u2")] })),
    ).toEqual({ message_type: "MESG", message: "Here is the roadmap, by Friday" });
    expect(
      updateStillToMake(
        { custom_type: "notice", data: "" },
        message({ type: "ADMM", custom_type: "", data: "{}" }),
      ),
    ).toEqual({ message_type: "ADMM", custom_type: "notice", data: "" });
  });

  it("updates nothing once the message holds the version: a rerun sends no request", () => {
    expect(
      updateStillToMake(
        { message: "Here is the roadmap", mentioned_user_ids: ["u2"] },
        message({ mentioned_users: [user("u2")] }),
      ),
    ).toBeNull();
    expect(updateStillToMake({}, message())).toBeNull();
  });
});
