import { describe, expect, it } from "vitest";
import {
  ActionFailed,
  failureSentence,
  unreachedMessage,
  unwrap,
  type ActionResult,
} from "@/lib/actions/action-result";

const settle = <T>(result: ActionResult<T>) => Promise.resolve(result);

describe("unwrap, the one way outside forms to turn an action's result into UI", () => {
  it("answers a success's data", async () => {
    await expect(unwrap(settle({ data: { jobId: "j1" } }))).resolves.toEqual({ jobId: "j1" });
  });

  it("fails with the server's sentence, or the first validation message", async () => {
    await expect(unwrap(settle({ serverError: "The job is running." }))).rejects.toEqual(
      new ActionFailed("The job is running."),
    );
    const invalid = settle({
      validationErrors: { formErrors: [], fieldErrors: { url: ["Enter an https URL."] } },
    });
    await expect(unwrap(invalid)).rejects.toMatchObject({ message: "Enter an https URL." });
  });

  it("turns a call that never reached the console into a sentence, not a TypeError", async () => {
    const lost = Promise.reject(new TypeError("Failed to fetch"));
    const error = await unwrap(lost).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ActionFailed);
    expect(failureSentence(error)).toBe(unreachedMessage);
    expect(failureSentence(new TypeError("Failed to fetch"))).toBe(unreachedMessage);
  });
});
