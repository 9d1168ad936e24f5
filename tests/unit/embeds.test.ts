import { describe, expect, it } from "vitest";
import { applyForm } from "~/forms/apply";
import { contactForm } from "~/forms/contact";
import type { FormDef } from "~/forms/schema";
import { checkEmbedSites } from "~/lib/embed/allowed-sites.server";
import { embedScriptTag, staticFormHtml } from "~/lib/embed/snippets.server";
import { embedQuery, embedViewOf } from "~/lib/embed/framed-page.server";
import { applySecurityHeaders, buildContentSecurityPolicy, FRAME_ANCESTORS_HEADER } from "~/lib/http/security-headers.server";

// What the console hands out to embed a form, and who may frame it: the HTML carries the definition's
// constraints with every owner text escaped; frame-ancestors lists exact origins only, and only when asked.

const SITE = {
  origin: "https://forms.example.org",
  siteKey: "0x4AAAAAAA",
  scriptUrl: "https://challenges.cloudflare.com/turnstile/v0/api.js",
};

describe("the form as HTML", () => {
  it("carries the fields' constraints, the trap and the widget with the form's action and sitekey", () => {
    const html = staticFormHtml(contactForm, SITE);
    expect(html).toContain('action="https://forms.example.org/api/forms/contact/submissions?lang=en"');
    expect(html).toContain(
      '<input type="text" id="gp-contact-name" name="name" required aria-describedby="gp-contact-name-hint" autocomplete="name" maxlength="100">',
    );
    expect(html).toContain(
      '<textarea id="gp-contact-message" name="message" required aria-describedby="gp-contact-message-hint" rows="6" minlength="10" maxlength="5000"></textarea>',
    );
    expect(html).toContain('name="_gotcha" tabindex="-1"');
    expect(html).toContain(
      'class="cf-turnstile" data-sitekey="0x4AAAAAAA" data-action="contact" data-language="en" data-callback="gatepostReady_contact"',
    );
    expect(html).toContain(`<script src="${SITE.scriptUrl}" async defer></script>`);
    expect(html).toContain(JSON.stringify(contactForm.successMessage));
  });

  it("speaks a language the form offers, with its owner's texts in it", () => {
    const html = staticFormHtml(contactForm, SITE, "de");
    expect(html).toContain("?lang=de");
    expect(html).toContain(
      '<form id="gp-contact" method="post" action="https://forms.example.org/api/forms/contact/submissions?lang=de" lang="de">',
    );
    expect(html).toContain(">Ihr Name</label>");
    expect(html).toContain('<button type="submit">Senden</button>');
  });

  it("posts files as multipart, with the field's types and limits", () => {
    const html = staticFormHtml(applyForm, SITE);
    expect(html).toContain('enctype="multipart/form-data"');
    expect(html).toContain('accept="application/pdf,.pdf"');
    expect(html).toContain("A PDF file of up to 10 MB.");
  });

  it("escapes whatever the owner typed, in the markup and in the script", () => {
    const hostile: FormDef = {
      ...contactForm,
      successMessage: "Thanks </script><script>alert(1)</script>",
      fields: [
        {
          name: "pick",
          type: "select",
          label: 'Pick "<b>one</b>"',
          hint: "<img src=x onerror=alert(1)>",
          options: [{ value: '"><x', label: "<i>" }],
        },
      ],
    };
    const html = staticFormHtml(hostile, SITE);
    expect(html).not.toMatch(/<b>|<img|<i>|<x/);
    expect(html).toContain("Pick &quot;&lt;b&gt;one&lt;/b&gt;&quot;");
    expect(html).toContain('<option value="&quot;&gt;&lt;x">&lt;i&gt;</option>');
    // The success message cannot close the script it travels in.
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html).toContain("Thanks \\u003c/script>\\u003cscript>alert(1)\\u003c/script>");
  });

  it("gives a one-line script tag naming the form", () => {
    expect(embedScriptTag({ id: "contact", title: 'Say "hi"' }, SITE)).toBe(
      '<script src="https://forms.example.org/embed.js" data-form="contact" data-title="Say &quot;hi&quot;" async></script>',
    );
  });
});

describe("framing", () => {
  it("is refused unless a route names exact origins, and the route's header never leaves", () => {
    expect(buildContentSecurityPolicy("n")).toContain("frame-ancestors 'none'");
    const headers = new Headers({ [FRAME_ANCESTORS_HEADER]: "https://a.example http://127.0.0.1:8080 https://b.example/path *" });
    applySecurityHeaders(headers, { nonce: "n" });
    expect(headers.get("content-security-policy")).toContain("frame-ancestors https://a.example http://127.0.0.1:8080;");
    expect(headers.has(FRAME_ANCESTORS_HEADER)).toBe(false);
  });

  it("knows an embedded visit and its parent only when the parent is listed, and keeps it framed", () => {
    const allowed = ["https://site.example"];
    const view = embedViewOf(new URL("https://g.example/f/contact?embed=1&parent=https%3A%2F%2Fsite.example").searchParams, allowed);
    expect(view).toEqual({ embed: true, parent: "https://site.example" });
    expect(embedQuery(view)).toBe("?embed=1&parent=https%3A%2F%2Fsite.example");
    expect(embedViewOf(new URL("https://g.example/f/contact?embed=1&parent=https://evil.example").searchParams, allowed)).toEqual({
      embed: true,
      parent: null,
    });
    expect(embedQuery(embedViewOf(new URL("https://g.example/f/contact").searchParams, allowed))).toBe("");
  });
});

describe("the sites typed in the console", () => {
  it("take exact https origins and hostnames, loopback http only in local development", () => {
    expect(
      checkEmbedSites(
        { origins: "https://a.example\nhttps://a.example, http://localhost:8080", hostnames: "A.example" },
        { allowLoopbackHttp: true },
      ),
    ).toEqual({
      ok: true,
      sites: { origins: ["https://a.example", "http://localhost:8080"], hostnames: ["a.example"] },
    });
    const refused = checkEmbedSites(
      { origins: "http://localhost:8080 https://a.example/ https://*.example", hostnames: "a_b.example" },
      { allowLoopbackHttp: false },
    );
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.problems).toHaveLength(4);
  });
});
