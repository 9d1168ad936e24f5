/** A token the stand-in siteverify accepts once, as if a widget with this action ran on `hostname`. */
export function standinToken({ action = "contact", hostname = "localhost" } = {}): string {
  const claims = { n: crypto.randomUUID(), a: action, h: hostname, t: new Date().toISOString() };
  const b64 = btoa(JSON.stringify(claims)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return `XXXX.DUMMY.TOKEN.${b64}`;
}
