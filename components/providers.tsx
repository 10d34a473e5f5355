"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useState, type ReactNode } from "react";

export type ProvidersProps = { children: ReactNode };

export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      // Server-prefetched data is fresh for a moment; refetching it at once would double the work.
      queries: { staleTime: 30_000, retry: 1 },
    },
  });
}

export function Providers({ children }: ProvidersProps) {
  // One client per browser tab, created on first render (not per render, not shared across requests).
  const [queryClient] = useState(makeQueryClient);
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>;
}
