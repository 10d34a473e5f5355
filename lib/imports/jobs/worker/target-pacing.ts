import "server-only";
import type { ResponseInfo } from "@/lib/platform";
import { Pacer } from "../run/pacer";
import type { Pacers } from "../run/send-row";

export type TargetPacing = { pacers: Pacers; onResponse: (info: ResponseInfo) => void };

/**
 * Each target's pacers, made on first use. A target's answers reach its own pacers (through
 * `onResponse`, given to its client), which learn its limits from the first: one platform's
 * limit or 429 says nothing of another's.
 */
export function pacingByTarget(): (targetId: string | null) => TargetPacing {
  const pacing = new Map<string, TargetPacing>();
  return (targetId) => {
    const key = targetId ?? "";
    let known = pacing.get(key);
    if (!known) {
      const pacers: Pacers = {
        read: new Pacer({ learnFirst: true }),
        write: new Pacer({ learnFirst: true }),
        migration: new Pacer({ learnFirst: true }),
      };
      const onResponse = (info: ResponseInfo) =>
        (info.url.includes("/v3/migration/")
          ? pacers.migration
          : info.method === "GET"
            ? pacers.read
            : pacers.write
        ).observe(info.status, info.rateLimit);
      known = { pacers, onResponse };
      pacing.set(key, known);
    }
    return known;
  };
}
