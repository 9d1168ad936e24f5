import { inject } from "vitest";

/** Switches the stand-in provider's siteverify behaviour for the next calls. */
export async function setStandinMode(mode: string, options: { times?: number; delayMs?: number } = {}) {
  const res = await fetch(`${inject("standinOrigin")}/__standin/mode`, {
    method: "POST",
    body: JSON.stringify({ mode, ...options }),
  });
  if (!res.ok) throw new Error(`stand-in refused mode ${mode}`);
}

export async function resetStandin() {
  await fetch(`${inject("standinOrigin")}/__standin/reset`, { method: "POST" });
}

export async function standinCalls(): Promise<Array<Record<string, string>>> {
  return (await fetch(`${inject("standinOrigin")}/__standin/calls`)).json();
}
