// The editor's labelled native inputs: each has its label, and its hint joined by aria-describedby.

export const MB = 1024 * 1024;

/** A number as an input's text: "" for unset (or junk typed earlier), else in `scale` units. */
export const num = (n: number | undefined, scale = 1) => (n === undefined || Number.isNaN(n) ? "" : String(n / scale));

type Labelled = { id: string; label: string; hint?: string };

export function Input({ id, label, hint, ...rest }: Labelled & React.InputHTMLAttributes<HTMLInputElement>) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
      <input id={id} className="control" aria-describedby={hint ? `${id}-hint` : undefined} {...rest} />
    </div>
  );
}

export function TextArea({ id, label, hint, ...rest }: Labelled & React.TextareaHTMLAttributes<HTMLTextAreaElement>) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
      <textarea id={id} className="control" rows={3} aria-describedby={hint ? `${id}-hint` : undefined} {...rest} />
    </div>
  );
}

export function Check({ id, label, ...rest }: { id: string; label: string } & React.InputHTMLAttributes<HTMLInputElement>) {
  return (
    <div className="field checkbox">
      <label htmlFor={id}>
        <input id={id} type="checkbox" {...rest} />
        <span>{label}</span>
      </label>
    </div>
  );
}
