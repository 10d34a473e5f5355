import { useRef } from "react";

/**
 * A mutation's `mutate` that drops a call while one is under way. A double click sends its
 * second click before React shows the button as pending (react-query reports the new state a
 * task later), so `disabled={isPending}` alone let two test events, or two rehearsals, through.
 * The mutation's own state still shows the outcome and any error.
 */
export function useSingleFlight<T>(mutation: {
  mutateAsync: (variables: T) => Promise<unknown>;
}): (variables: T) => void {
  const busy = useRef(false);
  return (variables) => {
    if (busy.current) return;
    busy.current = true;
    mutation
      .mutateAsync(variables)
      .catch(() => {})
      .finally(() => {
        busy.current = false;
      });
  };
}
