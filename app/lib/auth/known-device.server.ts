import { createCookie } from "@remix-run/cloudflare";
import { encodeBase64Url } from "~/lib/crypto/base64";

// A known device (ADR 112): a browser that signed in with the right password keeps a signed random id, and its
// sign-ins count against that id alone, so a flood from strangers cannot keep the owner out.

export const DEVICE_COOKIE = "__Host-gp_admin_device";
/** Chrome keeps a cookie 400 days at most. */
const DEVICE_TTL_SECONDS = 400 * 86_400;
const DEVICE_ID = /^[A-Za-z0-9_-]{22}$/;

function deviceCookie(secrets: readonly string[]) {
  return createCookie(DEVICE_COOKIE, {
    secrets: [...secrets],
    httpOnly: true,
    secure: true,
    sameSite: "strict",
    path: "/",
    maxAge: DEVICE_TTL_SECONDS,
  });
}

/** The known device's id this request carries, signed with one of `secrets`; null for none, a forged or a junk one. Never throws. */
export async function knownDeviceOf(request: Request, secrets: readonly string[]): Promise<string | null> {
  if (secrets.length === 0) return null;
  try {
    const value: unknown = await deviceCookie(secrets).parse(request.headers.get("Cookie"));
    return typeof value === "string" && DEVICE_ID.test(value) ? value : null;
  } catch {
    return null;
  }
}

/** The Set-Cookie that keeps this browser known (its id, or a new one), signed with `secrets[0]`. */
export async function knownDeviceCookie(secrets: readonly string[], id: string | null): Promise<string> {
  return deviceCookie(secrets).serialize(id ?? encodeBase64Url(crypto.getRandomValues(new Uint8Array(16))));
}
