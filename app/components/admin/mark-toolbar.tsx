import { Form } from "@remix-run/react";

// The list's marks (docs/forms.md#spam): tick submissions, then mark them all at once. The ticks live
// in the table's rows and join this form by its id, so the table needs no form around it.

export const MARK_FORM_ID = "spam-marks";

export function MarkToolbar({ result }: { result?: { ok: boolean; message: string } }) {
  return (
    <>
      {result ? (
        <p className={result.ok ? "notice ok" : "notice error"} role="status">
          {result.message}
        </p>
      ) : null}
      <Form method="post" id={MARK_FORM_ID} className="actions" aria-label="Mark the ticked submissions">
        <button type="submit" name="intent" value="mark-spam">
          Mark ticked as spam
        </button>
        <button type="submit" name="intent" value="mark-ham">
          Mark ticked as not spam
        </button>
      </Form>
    </>
  );
}

export function MarkTick({ id }: { id: string }) {
  return (
    <td data-label="Tick">
      <input type="checkbox" name="id" value={id} form={MARK_FORM_ID} aria-label={`Tick submission ${id}`} />
    </td>
  );
}
