import { Form } from "@remix-run/react";
import type { SettingView } from "~/lib/form-destinations/settings.server";
import type { SettingLabel } from "~/lib/form-destinations/page.server";
import { formatUtc } from "~/lib/console/page";

// One setting on the Destinations page: where its value comes from, and for whoever may edit it, the
// form that sets, clears, toggles or generates it.

/** Where the value comes from: the environment, the console, the local sink, a site-wide stand-in, or nowhere. */
function Source({ view, generated }: { view: SettingView; generated: boolean }) {
  if (view.source === "environment")
    return <p className="small">{`Set by the environment (${view.variable}), which wins: change it there.`}</p>;
  if (view.unreadable) return <p className="small">Set here, but the settings&apos; encryption key does not open it: set it again.</p>;
  if (view.source === "console") {
    const secret = generated ? " It was shown once, when it was made." : "";
    return <p className="small">{view.shown ? `Set here: ${view.shown}` : `Set here.${secret}`}</p>;
  }
  if (view.source === "local") {
    return (
      <p className="small">
        {view.shown
          ? `Not set here, so under npm start it goes to the local sink: ${view.shown}. Set one to send elsewhere.`
          : "Not set here, so under npm start the local sink's own secret signs (printed at start), and the sink verifies with it."}
      </p>
    );
  }
  if (view.siteWide) {
    const { variable, shown, note } = view.siteWide;
    return <p className="small">{`Not set here, so the site-wide ${variable} stands in${shown ? `: ${shown}` : ""}. ${note}`}</p>;
  }
  return <p className="small">Not set: off.</p>;
}

/** A setting's section: its words, its source, and the form that changes it when `editable`. */
export function DestinationSetting({ view, label, editable }: { view: SettingView; label: SettingLabel; editable: boolean }) {
  const inputId = `value-${view.name}`;
  return (
    <section key={view.name} aria-labelledby={`title-${view.name}`} className="destination">
      <h2 id={`title-${view.name}`}>{label.title}</h2>
      <p className="small">{label.hint}</p>
      {label.needs ? <p className="notice">{label.needs}</p> : null}
      <Source view={view} generated={label.generated} />
      {label.generated ? (
        <>
          {view.previousUntil ? (
            <p className="small">{`The previous secret signs too, until ${formatUtc(new Date(view.previousUntil).toISOString())}.`}</p>
          ) : null}
          {editable ? <p className="small">A new secret is made here and shown once.</p> : null}
          {editable ? (
            <Form method="post" className="actions">
              <button type="submit" name="intent" value={`generate:${view.name}`}>
                {view.source === "console" ? "Rotate the secret" : "Generate a secret"}
              </button>
              {label.pair ? (
                <button type="submit" name="intent" value={`keypair:${view.name}`} className="secondary">
                  {view.source === "console" ? "Rotate to a new key pair (v1a)" : "Generate a key pair (v1a)"}
                </button>
              ) : null}
              {view.previousUntil ? (
                <button type="submit" name="intent" value={`retire:${view.name}`} className="secondary">
                  Stop signing with the previous secret now
                </button>
              ) : null}
            </Form>
          ) : null}
        </>
      ) : label.toggle ? (
        editable ? (
          <Form method="post" className="actions">
            <input type="hidden" name="value" value={label.toggle.value} />
            {view.source === "console" ? (
              <button type="submit" name="intent" value={`clear:${view.name}`} className="secondary">
                {label.toggle.off}
              </button>
            ) : (
              <button type="submit" name="intent" value={`set:${view.name}`}>
                {label.toggle.on}
              </button>
            )}
          </Form>
        ) : null
      ) : editable ? (
        <Form method="post" className="filters">
          <label className="wide" htmlFor={inputId}>
            {label.input}
            <input
              id={inputId}
              name="value"
              type={label.type}
              required
              maxLength={label.maxLength ?? 2000}
              autoComplete="off"
              spellCheck={false}
            />
          </label>
          <button type="submit" name="intent" value={`set:${view.name}`}>
            Save
          </button>
          {view.source === "console" ? (
            <button type="submit" name="intent" value={`clear:${view.name}`} className="secondary" formNoValidate>
              Clear
            </button>
          ) : null}
        </Form>
      ) : null}
    </section>
  );
}
