// A pure function of one setting, asked on every request about the same value: its last answer is kept
// so the value is not parsed again per request. One entry: a deployment has one such setting at a time.

/** `fn` with its answer for the last argument kept. `fn` must be pure. */
export function rememberLast<R>(fn: (value: string) => R): (value: string) => R {
  let last: { value: string; answer: R } | undefined;
  return (value) => {
    if (last?.value !== value) last = { value, answer: fn(value) };
    return last.answer;
  };
}
