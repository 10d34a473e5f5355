import { describe, expect, it } from "vitest";
import {
  guardLeaving,
  LEAVE_QUESTION,
  leaveListeners,
  workAtRisk,
} from "@/components/imports/wizard/use-leave-guard";
import { initialWizardState, type WizardState } from "@/components/imports/wizard/wizard-state";

/**
 * The question before leaving the wizard (components/imports/wizard/use-leave-guard.ts): when
 * work is at risk, and what the listeners do with a page close and a click on a link.
 */

const header = { columns: ["user_id"], rows: 1, profiles: [], firstRow: 2 };
const mapping: WizardState = { ...initialWizardState, resource: "users", step: "map", header };

describe("when leaving would lose work", () => {
  it("only once there is work on a file, while the draft is not saved or a cell is being edited", () => {
    expect(workAtRisk(initialWizardState, "saving", true)).toBe(false);
    expect(workAtRisk({ ...mapping, step: "upload" }, "saving", false)).toBe(false);
    expect(workAtRisk(mapping, "saved", false)).toBe(false);
    expect(workAtRisk(mapping, "saving", false)).toBe(true);
    expect(workAtRisk(mapping, "failed", false)).toBe(true);
    expect(workAtRisk({ ...mapping, step: "preview" }, "saved", true)).toBe(true);
  });

  it("not while the rows are being sent: the job holds them and the page moves on", () => {
    expect(workAtRisk({ ...mapping, activity: "uploading" }, "saving", true)).toBe(false);
  });
});

/** A click as the document's capturing listener sees it. */
function click(target: unknown, defaultPrevented = false) {
  const seen = { prevented: false, stopped: false };
  const event = {
    target: target as EventTarget,
    defaultPrevented,
    preventDefault: () => void (seen.prevented = true),
    stopPropagation: () => void (seen.stopped = true),
  };
  return { event, seen };
}
const inside = (link: unknown) => ({
  closest: (selector: string) => (selector === "a[href]" ? link : null),
});

describe("the leave guard's listeners", () => {
  it("a link followed asks first, and stays on the page when the answer is no", () => {
    const asked: string[] = [];
    const stay = leaveListeners((question) => (asked.push(question), false));
    const refused = click(inside({ href: "/imports" }));
    stay.click(refused.event);
    expect(asked).toEqual([LEAVE_QUESTION]);
    expect(refused.seen).toEqual({ prevented: true, stopped: true });

    const leave = leaveListeners(() => true);
    const allowed = click(inside({ href: "/imports" }));
    leave.click(allowed.event);
    expect(allowed.seen).toEqual({ prevented: false, stopped: false });
  });

  it("clicks outside links, and links something else already handled, ask nothing", () => {
    const asked: string[] = [];
    const listeners = leaveListeners((question) => (asked.push(question), false));
    listeners.click(click(inside(null)).event);
    listeners.click(click(null).event);
    listeners.click(click({}).event);
    listeners.click(click(inside({ href: "/" }), true).event);
    expect(asked).toEqual([]);
  });

  it("is listening while installed, and not after its undo", () => {
    const page = new EventTarget();
    const links = new EventTarget();
    const undo = guardLeaving(page, links, () => false);
    const closing = new Event("beforeunload", { cancelable: true });
    page.dispatchEvent(closing);
    expect(closing.defaultPrevented).toBe(true);

    undo();
    const later = new Event("beforeunload", { cancelable: true });
    page.dispatchEvent(later);
    expect(later.defaultPrevented).toBe(false);
  });
});
