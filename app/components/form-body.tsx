import { useEffect, useRef, useState, type ReactNode } from "react";
import { flushSync } from "react-dom";
import type { FieldDef, FormDef } from "~/forms/schema";
import { FormField } from "~/components/form-field";
import { askedInPage } from "~/lib/conditions/page-values";
import { fill } from "~/lib/text/fill";
import type { FieldTexts } from "~/lib/i18n/messages/types";

// A form's fields, with its conditions and steps (docs/forms.md#conditions, ADRs 127 and 128). The server
// decides what is asked; the page follows the same rules (app/lib/conditions/) as the person answers: a
// field not asked is disabled, so it is neither checked nor sent, and one newly asked is announced
// politely (it shows inside a live region). What shows is CSS's: `[data-asked="false"]` and steps not current are hidden while scripting
// is on (before hydration too: no shift); without JavaScript every field and step shows as one page.

interface Props {
  /** Each field's `when` its whole condition, groups' included (withConditions, app/lib/conditions/evaluate.ts). */
  form: Pick<FormDef, "fields" | "steps">;
  /** The fields asked on the answers the page starts from (the server's reading, app/lib/conditions/page-values.ts). */
  asked: readonly string[];
  values: Record<string, string>;
  errors: Record<string, string>;
  texts: FieldTexts;
  hydrated: boolean;
  /** The captcha and Send, shown with the last step; `mounted` is false while another step shows. */
  finish: (mounted: boolean) => ReactNode;
}

export function FormBody({ form, values, errors, texts, hydrated, finish, ...props }: Props) {
  const { page } = texts;
  const [asked, setAsked] = useState(() => new Set(props.asked));
  const body = useRef<HTMLDivElement>(null);
  // Without JavaScript (and so on the server) every step shows; with it, a step with nothing asked is skipped.
  const steps = (form.steps ?? []).filter((step) => !hydrated || step.fields.some((name) => asked.has(name)));
  const firstError = steps.findIndex((step) => step.fields.some((name) => errors[name]));
  const [current, setCurrent] = useState(Math.max(0, firstError));
  const update = () => setAsked(askedInPage(form.fields, body.current!));
  useEffect(() => {
    update();
    if (firstError >= 0) setCurrent(firstError);
    // A new answer from the server only (and the first render, on what the browser may have restored).
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `update` and `firstError` follow from it
  }, [errors]);

  const field = (def: FieldDef) => {
    const shown = <FormField key={def.name} field={def} value={values[def.name] ?? ""} error={errors[def.name]} texts={texts} />;
    const on = asked.has(def.name);
    // The region is there before the field shows, so what shows in it is announced politely.
    return def.when ? (
      <div key={def.name} aria-live="polite">
        <fieldset className="asked" data-asked={on} disabled={hydrated && !on}>
          {shown}
        </fieldset>
      </div>
    ) : (
      shown
    );
  };
  const at = Math.min(current, steps.length - 1);
  // Shown at once, so focus can go to the step's heading: the person hears where they are.
  const moveTo = (index: number) => {
    flushSync(() => setCurrent(index));
    body.current!.children[index]!.querySelector("h2")!.focus();
  };
  return (
    <div ref={body} onChange={update}>
      {form.steps
        ? steps.map((step, index) => (
            <section key={step.fields[0]} className="step" data-current={index === at}>
              <p className="step-progress">{fill(page.stepProgress, { step: index + 1, count: steps.length })}</p>
              <h2 tabIndex={-1}>{step.title}</h2>
              {step.fields.map((name) => field(form.fields.find((def) => def.name === name)!))}
              {index > 0 ? (
                <button type="button" className="secondary" onClick={() => moveTo(index - 1)}>
                  {page.stepBack}
                </button>
              ) : null}
              {index < steps.length - 1 ? (
                <button type="button" onClick={() => checkStep(body.current!.children[index]!) && moveTo(index + 1)}>
                  {page.stepNext}
                </button>
              ) : (
                finish(!hydrated || index === at)
              )}
            </section>
          ))
        : null}
      {form.steps ? null : form.fields.map(field)}
      {form.steps ? null : finish(true)}
    </div>
  );
}

/** Whether a step's enabled controls pass the browser's checks (required, types, ranges); the first problem shows. */
function checkStep(step: Element): boolean {
  // Disabled and hidden controls are barred from constraint validation: a field not asked always passes.
  return [...step.querySelectorAll<HTMLInputElement>("[name]")].every((control) => control.reportValidity());
}
