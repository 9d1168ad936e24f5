import { describe, expect, it } from "vitest";
import { parseSettings } from "~/lib/settings/settings.server";
import { contrast } from "~/lib/settings/site.server";

describe("the site's look (SITE_NAME, SITE_LOGO_URL, BRAND_COLOR)", () => {
  it("defaults to Gatepost's own name and colours, with no problems", () => {
    const { site, problems } = parseSettings({});
    expect(site).toEqual({ name: "Gatepost", logoUrl: null, logoOrigin: null, brand: null });
    expect(problems).toEqual([]);
  });

  it("takes a name, an https or on-site logo and a hex colour, picking readable ink and link colours", () => {
    const dark = parseSettings({ SITE_NAME: "Acme", SITE_LOGO_URL: "https://cdn.example.org/logo.svg", BRAND_COLOR: "#0F766E" }).site;
    expect(dark).toEqual({
      name: "Acme",
      logoUrl: "https://cdn.example.org/logo.svg",
      logoOrigin: "https://cdn.example.org",
      brand: { color: "#0f766e", ink: "#ffffff", link: "#0f766e" },
    });
    const pale = parseSettings({ SITE_LOGO_URL: "/logo.svg", BRAND_COLOR: "#fc0" }).site;
    expect(pale.logoOrigin).toBeNull();
    expect(pale.brand).toEqual({ color: "#ffcc00", ink: "#111827", link: "#1d4ed8" });
    expect(contrast(pale.brand!.color, pale.brand!.ink)).toBeGreaterThanOrEqual(4.5);
  });

  it("keeps the default for a bad value and names the variable", () => {
    const { site, problems } = parseSettings({ SITE_LOGO_URL: "http://cdn.example.org/x.png", BRAND_COLOR: "teal; background:url(x)" });
    expect(site.logoUrl).toBeNull();
    expect(site.brand).toBeNull();
    expect(problems.map((p) => p.variable)).toEqual(["SITE_LOGO_URL", "BRAND_COLOR"]);
  });
});
