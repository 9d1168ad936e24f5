import { Link } from "@remix-run/react";
import type { ReactNode } from "react";
import { byCount, countOf } from "~/lib/text/count";

// An audit row as a sentence; an action this list does not know yet is shown as its name and its detail's keys.

type Detail = Record<string, unknown>;

function parseDetail(detail: string | null): Detail {
  if (!detail) return {};
  try {
    const value: unknown = JSON.parse(detail);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Detail) : { detail: value };
  } catch {
    return { detail };
  }
}

/** ": title changed, field email added." — a definition's changes as the audit row lists them. */
function changeList(changes: unknown): string {
  if (!Array.isArray(changes) || changes.length === 0) return ".";
  return `: ${changes.map(String).join("; ")}.`;
}

/** A detail's count with its noun (the detail is JSON someone else wrote: anything else counts as 0). */
const plural = (n: unknown, one: string, other: string) => countOf(Number.isFinite(Number(n)) ? Number(n) : 0, one, other);

/** What one audit entry records, in words; submission ids link to the submission. */
export function AuditSentence({ action, target, detail }: { action: string; target: string | null; detail: string | null }) {
  const d = parseDetail(detail);
  const submission: ReactNode = target ? <Link to={`/admin/submissions/${target}`}>submission {target.slice(0, 8)}</Link> : "a submission";
  const form = target ? <code>{target}</code> : "a form";
  const refused = typeof d.refused === "string" ? <> It was refused ({String(d.refused)}).</> : null;
  switch (action) {
    case "sign-in":
      return <>Signed in.</>;
    case "sign-out":
      return <>Signed out.</>;
    case "submission.delete":
      return <>Deleted {target ? `submission ${target.slice(0, 8)}` : "a submission"} with its deliveries for good.</>;
    case "submission.redeliver":
      return refused ? (
        <>
          Tried to redeliver {submission}.{refused}
        </>
      ) : (
        <>
          Redelivered {submission}: {plural(d.requeued, "delivery", "deliveries")} queued again.
          {Number(d.keptConfirmations) > 0 ? " The confirmation to the sender was not sent again." : null}
        </>
      );
    case "submission.release":
      return (
        <>
          Released {submission} from quarantine and queued it for {plural(d.destinations, "destination", "destinations")}.
        </>
      );
    case "form.redeliver-dead":
      return refused ? (
        <>
          Tried to redeliver the dead deliveries of {form}.{refused}
        </>
      ) : (
        <>
          Queued {plural(d.requeued, "dead delivery", "dead deliveries")} of {form}
          {d.destination ? ` to ${String(d.destination)}` : null}
          {d.from || d.to ? ` made from ${String(d.from ?? "the start")} to ${String(d.to ?? "now")}` : null} again.
          {Number(d.remaining) > 0 ? ` ${plural(d.remaining, "was", "were")} left for the next run.` : null}
        </>
      );
    case "erase.preview":
      return <>Looked up one e-mail address for erasure: {plural(d.matched, "submission", "submissions")} matched.</>;
    case "erase":
      return (
        <>
          Erased {plural(d.matched, "submission", "submissions")} holding one e-mail address, with{" "}
          {byCount(Number(d.matched), "its delivery log", "their delivery logs")}.
        </>
      );
    case "export": {
      const range = d.from || d.to ? ` from ${String(d.from ?? "the start")} to ${String(d.to ?? "now")}` : "";
      return (
        <>
          Exported {plural(d.rows, "submission", "submissions")} of {form} as {String(d.format ?? "a file").toUpperCase()}
          {range}.
        </>
      );
    }
    case "form.create":
    case "form.draft":
    case "form.publish": {
      const verb =
        action === "form.create" ? "Created" : action === "form.draft" ? "Saved a draft of" : `Published version ${String(d.version)} of`;
      return (
        <>
          {verb} {form}
          {changeList(d.changes)}
          {d.confirmedFieldNames ? " Confirmed renaming or removing fields that held data." : ""}
        </>
      );
    }
    case "form.discard-draft":
      return <>Discarded the draft of {form}.</>;
    case "form.archive":
      return <>Archived {form}: new submissions are refused.</>;
    case "form.restore":
      return <>Restored {form}: it takes submissions again.</>;
    case "form.setting":
      return (
        <>
          {`${String(d.change ?? "Changed")} `.replace(/^./, (c) => c.toUpperCase())}
          {String(d.setting ?? "a setting")} of {form}.
        </>
      );
    case "form.embed":
      return (
        <>{`Set the sites allowed to embed ${target ?? "a form"}: origins ${String(d.origins ?? "none")}; token hostnames ${String(d.hostnames ?? "none")}.`}</>
      );
    case "form.test":
      return (
        <>
          Sent a test of {form} to {String(d.destination ?? "a destination")}
          {typeof d.submission === "string" ? <> ({<Link to={`/admin/submissions/${d.submission}`}>its timeline</Link>})</> : null}.
        </>
      );
    case "token.create":
      return <>{`Made the API token “${String(d.name ?? target)}” with the ${String(d.role ?? "")} role.`}</>;
    case "token.revoke":
      return <>{`Revoked the API token ${target ?? ""}.`}</>;
    default: {
      const facts = Object.entries(d).map(([key, value]) => `${key} ${typeof value === "string" ? value : JSON.stringify(value)}`);
      return <>{`${action}${target ? ` on ${target}` : ""}${facts.length ? ` (${facts.join(", ")})` : ""}.`}</>;
    }
  }
}
