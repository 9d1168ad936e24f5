import { z } from "zod";
import { json, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useRouteLoaderData } from "@remix-run/react";
import { StateBadge } from "~/components/admin/state-badge";
import { DeliveryTimeline } from "~/components/admin/delivery-timeline";
import { kindSpec } from "~/lib/destinations/registry";
import { FieldList } from "~/components/admin/field-list";
import { formCatalog } from "~/lib/forms/live.server";
import { labelsAt } from "~/lib/submissions/version-labels.server";
import { actionContext, deleteSubmission, redeliverOne, releaseQuarantined } from "~/lib/submissions/actions.server";
import { requireAdminAction, requireUser } from "~/lib/auth/admin-user.server";
import { adminHeaders, adminMeta, formatUtc } from "~/lib/console/page";
import { readAdminForm, TokenSchema } from "~/lib/console/input.server";
import { loadSubmissionDetail, withoutReplyExcerpts } from "~/lib/storage/console-queries.server";
import { refusal } from "~/lib/http/responses.server";
import type { loader as layoutLoader } from "~/routes/admin";
import { consoleRoute } from "~/lib/console/route.server";
import { filesKept } from "~/lib/storage/file-objects.server";
import { SpamPanel } from "~/components/admin/spam-panel";
import { describeMarks, loadSpamPanel } from "~/lib/spam/console.server";
import { markAsOwner } from "~/lib/spam/owner-marks.server";
import { orEmptyMark } from "~/lib/text/empty-value";
import { describeAsking } from "~/lib/conditions/describe";

export const headers = adminHeaders;
export const meta: MetaFunction = () => adminMeta("Submission", "One submission, its verification and its delivery log.");

export const loader = consoleRoute(async ({ request, params, context }: LoaderFunctionArgs) => {
  const user = await requireUser(request, context);
  const id = TokenSchema.safeParse(params.id);
  const db = context.cloudflare.env.DB;
  const detail = id.success ? await loadSubmissionDetail(db, id.data) : null;
  if (!detail) throw refusal("not_found");
  const s = detail.submission;
  const labels = await labelsAt(db, await formCatalog(context), s.formId, s.formVersion);
  // A receiver's reply may echo its own secrets or internals: admins see it, viewers never receive it.
  const deliveries = user.role === "admin" ? detail.deliveries : withoutReplyExcerpts(detail.deliveries);
  // Each delivery's kind in words, from its module: the registry stays on the server.
  const kinds = Object.fromEntries(
    deliveries.map((d) => {
      const spec = kindSpec(d.destination);
      return [d.destination, { label: spec?.label ?? d.destination, idLabel: spec?.idLabel ?? null, email: spec?.email ?? false }];
    }),
  );
  const spam = await loadSpamPanel(db, s.id);
  // Which step each field was on and which conditions applied, in words: the definitions stay on the server.
  const asking = describeAsking(labels);
  return {
    ...detail,
    deliveries,
    labels: { ...labels, groups: undefined, steps: undefined },
    asking,
    kinds,
    filesKept: filesKept(s.quarantineReason),
    spam,
  };
});

const IntentSchema = z.object({ intent: z.enum(["delete", "redeliver", "release", "mark-spam", "mark-ham"]) });

export const action = consoleRoute(async ({ request, params, context }: ActionFunctionArgs) => {
  const user = await requireAdminAction(request, context);
  const parsedId = TokenSchema.safeParse(params.id);
  if (!parsedId.success) throw refusal("not_found");
  const id = parsedId.data;
  const { intent } = await readAdminForm(request, IntentSchema);
  const ctx = actionContext(context, user, request);
  if (intent === "delete") {
    const result = await deleteSubmission(ctx, id);
    if (result.ok) throw redirect("/admin/submissions?deleted=1", 303);
    throw refusal("not_found");
  }
  if (intent === "mark-spam" || intent === "mark-ham") {
    const label = intent === "mark-spam" ? "spam" : "ham";
    const marked = await markAsOwner({ ...ctx, publicUrl: ctx.settings.publicUrl }, [id], label);
    const said = describeMarks(marked, label, 1);
    return json(said, { status: said.ok ? 200 : 409 });
  }
  const result = intent === "redeliver" ? await redeliverOne(ctx, id) : await releaseQuarantined(ctx, id);
  return json(result, { status: result.ok ? 200 : 409 });
});

export default function SubmissionDetail() {
  const { submission: s, state, deliveries, labels, asking, kinds, filesKept: kept, spam } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const role = useRouteLoaderData<typeof layoutLoader>("routes/admin")?.user.role;
  return (
    <>
      <h1>Submission</h1>
      {result ? (
        <p className={result.ok ? "notice ok" : "notice error"} role="status">
          {result.message}
        </p>
      ) : null}
      <dl>
        <dt>Reference</dt>
        <dd>
          <code>{s.id}</code>
        </dd>
        <dt>Form</dt>
        <dd>{labels.title ? `${labels.title} (${s.formId})` : s.formId}</dd>
        <dt>Form version</dt>
        <dd>{s.formVersion ?? "not recorded"}</dd>
        <dt>Received</dt>
        <dd>{formatUtc(s.receivedAt)}</dd>
        <dt>Status</dt>
        <dd>
          <StateBadge state={state} />
        </dd>
        {s.quarantineReason ? (
          <>
            <dt>Quarantine reason</dt>
            <dd>{s.quarantineReason}</dd>
          </>
        ) : null}
      </dl>
      <h2>Fields</h2>
      {s.test ? <p className="note">A test sent from the console, with sample values.</p> : null}
      {labels.note ? <p className="note">{labels.note}</p> : null}
      <FieldList fields={labels.fields} values={s.fields} files={{ submissionId: s.id, kept }} asking={asking} />
      <SpamPanel spam={spam} canMark={role === "admin"} />
      <h2>Verification</h2>
      {s.verification ? (
        <dl>
          <dt>Hostname</dt>
          <dd>{orEmptyMark(s.verification.hostname)}</dd>
          <dt>Action</dt>
          <dd>{orEmptyMark(s.verification.action)}</dd>
          <dt>Challenge solved</dt>
          <dd>{formatUtc(s.verification.challengeTs)}</dd>
        </dl>
      ) : (
        <p>No Turnstile verdict is stored for this submission.</p>
      )}
      <h2>Delivery timeline</h2>
      {deliveries.length > 0 ? (
        <p className="note">
          A redelivery sends the same webhook id again. A receiver that de-duplicates by webhook id (as docs/webhooks.md advises) answers it
          as a duplicate and does not act twice: that is expected, and the attempt still counts as delivered.
        </p>
      ) : null}
      <DeliveryTimeline deliveries={deliveries} kinds={kinds} showReplies={role === "admin"} />
      {role === "admin" ? (
        <div className="actions">
          {state === "quarantined" ? (
            <Form method="post">
              <button type="submit" name="intent" value="release">
                Release from quarantine
              </button>
            </Form>
          ) : deliveries.length > 0 ? (
            <Form method="post">
              <button type="submit" name="intent" value="redeliver">
                Redeliver
              </button>
            </Form>
          ) : null}
          {/* A second click, without JavaScript: the delete button sits behind a disclosure. */}
          <details>
            <summary>Delete this submission…</summary>
            <p>This removes the submission, its files, its deliveries and their log for good.</p>
            <Form method="post">
              <button type="submit" name="intent" value="delete" className="danger">
                Delete permanently
              </button>
            </Form>
          </details>
        </div>
      ) : null}
    </>
  );
}
