// A pure function of one setting asked on every request: its last answer is kept, so the value is parsed once.

/** `fn` with its answer for the last argument kept. `fn` must be pure. */
export function rememberLast<R>(fn: (value: string) => R): (value: string) => R {
  let last: { value: string; answer: R } | undefined;
  return (value) => {
    if (last?.value !== value) last = { value, answer: fn(value) };
    return last.answer;
  };
}
