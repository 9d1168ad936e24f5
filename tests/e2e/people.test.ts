import type { Browser, CDPSession, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, inject } from "vitest";
import { E2E_ADMIN_PASSWORD } from "./bindings";
import { launchBrowser, watchErrors } from "./chromium";
import { WAIT, patient } from "./browser-page";

// People in Chromium (issue 56): the owner invites a person, who follows the link in a second browser
// context, chooses a password, adds a passkey through Chromium's virtual authenticator (CDP WebAuthn)
// and signs in with it after signing out.

let browser: Browser;
beforeAll(async () => {
  browser = await launchBrowser(inject("chromiumPath"));
});
afterAll(async () => {
  await browser?.close();
});

/** A platform authenticator that holds discoverable credentials and verifies its user at once. */
async function addVirtualAuthenticator(page: Page): Promise<CDPSession> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return cdp;
}

describe("people in Chromium", () => {
  it("invites a person, who joins in another context, adds a passkey and signs in with it", async () => {
    // WebAuthn takes a host name, never an IP address, as the relying party: the app by localhost.
    const base = inject("baseUrl").replace("://127.0.0.1", "://localhost");
    const email = `pat.${Date.now()}@example.org`;
    const ownerContext = await browser.newContext();
    const owner = patient(await ownerContext.newPage());
    const ownerErrors = watchErrors(owner);
    await owner.goto(`${base}/admin/login?next=%2Fadmin%2Fpeople`);
    await owner.getByLabel("Password").fill(E2E_ADMIN_PASSWORD);
    await owner.getByRole("button", { name: "Sign in", exact: true }).click();
    await owner.getByRole("heading", { name: "People" }).waitFor(WAIT);
    const inviteForm = owner.getByRole("form", { name: "Invite someone" });
    await inviteForm.getByLabel("E-mail address").fill(email);
    await inviteForm.getByLabel(/^Role/).selectOption("admin");
    await owner.getByRole("button", { name: "Invite" }).click();
    const link = (await owner.locator("code.secret").textContent(WAIT)) ?? "";
    expect(link).toMatch(/\/admin\/join\/gpinv_/);
    await owner.getByRole("row", { name: new RegExp(email.replace(/\./g, "\\.")) }).waitFor(WAIT);

    const personContext = await browser.newContext();
    const person = patient(await personContext.newPage());
    const personErrors = watchErrors(person);
    await person.goto(link);
    await person.getByRole("heading", { name: "Join the console" }).waitFor(WAIT);
    await person.getByLabel(/New password/).fill("pat's own password 42");
    await person.getByLabel("The same password again").fill("pat's own password 42");
    await person.getByRole("button", { name: "Set my password and sign in" }).click();
    await person.getByText(`Signed in as ${email} (admin)`).waitFor(WAIT);

    await addVirtualAuthenticator(person);
    await person.getByRole("link", { name: "Passkeys" }).click();
    await person.getByRole("heading", { name: "Passkeys" }).waitFor(WAIT);
    await person.getByLabel("Name", { exact: true }).fill("virtual key");
    await person.getByRole("button", { name: "Add a passkey" }).click();
    const added = person.getByText("Passkey “virtual key” added: sign in with it from now on.");
    await added.waitFor(WAIT).catch(async (error: unknown) => {
      throw new Error(`no passkey: ${(await person.locator(".notice").allTextContents()).join(" | ")}`, { cause: error });
    });
    await person.getByRole("button", { name: "Rename virtual key" }).waitFor(WAIT);

    await person.getByRole("button", { name: "Sign out", exact: true }).click();
    await person.getByRole("heading", { name: "Operator sign-in" }).waitFor(WAIT);
    await person.goto(`${base}/admin/login`);
    await person.getByRole("link", { name: "Use a passkey" }).click();
    await person.getByRole("button", { name: "Sign in with a passkey" }).click();
    await person.getByText(`Signed in as ${email} (admin)`).waitFor(WAIT);
    expect(new URL(person.url()).pathname).toBe("/admin");

    // The owner sees when the person last signed in.
    await owner.reload();
    const row = owner.getByRole("row", { name: new RegExp(email.replace(/\./g, "\\.")) });
    await expect(row.textContent()).resolves.toMatch(/UTC.*UTC/);
    expect(ownerErrors).toEqual([]);
    expect(personErrors).toEqual([]);
    await ownerContext.close();
    await personContext.close();
  });
});
