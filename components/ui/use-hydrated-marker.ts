"use client";

import { useEffect, useRef } from "react";

/**
 * A ref that marks its element `data-hydrated="true"` once React has taken over the page. A
 * click that lands on server-rendered HTML before hydration is lost; browser tests wait for the
 * marker instead of guessing from network quiet.
 */
export function useHydratedMarker<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => ref.current?.setAttribute("data-hydrated", "true"), []);
  return ref;
}
