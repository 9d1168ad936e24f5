// Extra bindings and helper servers the e2e app needs beyond Turnstile (webhook sink, admin password,
// allowed origins…). Each feature adds its own entry here; global-setup passes them to pages dev.
export interface ExtraBindings {
  bindings: Record<string, string>;
  stop: () => Promise<void>;
}

export async function extraBindings(): Promise<ExtraBindings> {
  const bindings: Record<string, string> = {};
  const stops: Array<() => Promise<void>> = [];
  return {
    bindings,
    stop: async () => {
      for (const stop of stops.reverse()) await stop();
    },
  };
}
