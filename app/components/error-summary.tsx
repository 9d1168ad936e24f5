import { useEffect, useRef, type MouseEvent } from "react";
import type { FieldDef } from "~/forms/schema";

// The problems at the top of a failed form; it takes focus and each entry links to its field.
export function ErrorSummary({
  fields,
  errors,
  message,
  titles,
}: {
  fields: readonly FieldDef[];
  errors: Record<string, string>;
  message: string | null;
  titles: { problem: string; notSent: string };
}) {
  const ref = useRef<HTMLDivElement>(null);
  const signature = JSON.stringify(errors) + (message ?? "");
  useEffect(() => {
    ref.current?.focus();
  }, [signature]);
  const listed = fields.filter((f) => errors[f.name]);
  if (!message && listed.length === 0) return null;
  return (
    // eslint-disable-next-line jsx-a11y/no-autofocus -- the error summary takes focus after a refused post (GOV.UK pattern), also when the page came back without JavaScript
    <div className="summary" ref={ref} tabIndex={-1} role="alert" aria-labelledby="summary-title" autoFocus>
      <h2 id="summary-title">{listed.length > 0 ? titles.problem : titles.notSent}</h2>
      {message ? <p>{message}</p> : null}
      {listed.length > 0 ? (
        <ul>
          {listed.map((f) => (
            <li key={f.name}>
              <a href={`#field-${f.name}`} onClick={(event) => focusField(event, `field-${f.name}`)}>
                {errors[f.name]}
              </a>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

// A fragment link scrolls but does not reliably move focus, so it is moved explicitly (GOV.UK's pattern).
function focusField(event: MouseEvent<HTMLAnchorElement>, id: string) {
  const field = document.getElementById(id);
  if (!field) return;
  event.preventDefault();
  field.focus();
  field.scrollIntoView({ block: "center" });
}
