import "server-only";
import { ImportJobError } from "@/lib/imports/jobs";
import { isTargetError } from "@/lib/targets";
import { ActionError } from "./action-error";

/** Our own refusals reach the administrator word for word; they changed nothing. */
export async function explained<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ImportJobError || isTargetError(error))
      throw new ActionError(error.message);
    throw error;
  }
}
