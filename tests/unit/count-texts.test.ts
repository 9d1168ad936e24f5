import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { StaticRouter } from "react-router-dom/server";
import { describe, expect, it } from "vitest";
import { AuditSentence } from "~/components/admin/audit-sentence";
import { countOf, waitOf } from "~/lib/text/count";

// Every count in a sentence takes the noun form English uses for it ("1 delivery", "5 deliveries"), and
// so does what goes with it ("its delivery log", "their delivery logs"): no "5 deliverys".

function sentence(action: string, detail: Record<string, unknown>, target: string | null = "contact") {
  const html = renderToStaticMarkup(
    createElement(
      StaticRouter,
      { location: "/admin/audit" },
      createElement(AuditSentence, { action, target, detail: JSON.stringify(detail) }),
    ),
  );
  return html.replace(/<[^>]+>/g, "");
}

describe("countOf", () => {
  it.each([
    [0, "0 deliveries"],
    [1, "1 delivery"],
    [2, "2 deliveries"],
    [5, "5 deliveries"],
    [1000, "1000 deliveries"],
  ])("says %i as %j", (n, text) => {
    expect(countOf(n, "delivery", "deliveries")).toBe(text);
  });
});

describe("audit sentences", () => {
  it.each<[string, Record<string, unknown>, string]>([
    ["submission.redeliver", { requeued: 5 }, "5 deliveries queued again."],
    ["submission.redeliver", { requeued: 1 }, "1 delivery queued again."],
    [
      "submission.redeliver",
      { requeued: 2, keptConfirmations: 1 },
      "2 deliveries queued again. The confirmation to the sender was not sent again.",
    ],
    ["form.redeliver-dead", { requeued: 2 }, "Queued 2 dead deliveries of contact again."],
    ["form.redeliver-dead", { requeued: 1 }, "Queued 1 dead delivery of contact again."],
    ["submission.release", { destinations: 1 }, "queued it for 1 destination."],
    ["erase", { matched: 1 }, "Erased 1 submission holding one e-mail address, with its delivery log."],
    ["erase", { matched: 3 }, "Erased 3 submissions holding one e-mail address, with their delivery logs."],
    ["erase.preview", { matched: 1 }, "1 submission matched."],
    ["export", { rows: 1, format: "csv" }, "Exported 1 submission of contact as CSV."],
  ])("%s %j reads %j", (action, detail, text) => {
    expect(sentence(action, detail)).toContain(text);
  });
});

describe("waitOf", () => {
  it("says a wait never shorter than the seconds given, as Retry-After counts them", () => {
    expect(waitOf(1)).toBe("1 second");
    expect(waitOf(45)).toBe("45 seconds");
    expect(waitOf(60)).toBe("1 minute");
    expect(waitOf(61)).toBe("2 minutes");
    expect(waitOf(450)).toBe("8 minutes");
    expect(waitOf(900)).toBe("15 minutes");
    expect(waitOf(0)).toBe("1 second");
  });
});
