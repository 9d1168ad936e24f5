// Work two loaders of one request would each do, done once: Remix runs a layout's loader beside its
// page's (the console's frame and its page both ask who is signed in). The load context holds one per
// request, so nothing kept outlives the request it was asked in.

/** The first answer for `key` in this request; later asks get the same promise (a rejection too). */
export type OncePerRequest = <T>(key: string, make: () => Promise<T>) => Promise<T>;

/** A fresh memo for one request. */
export function oncePerRequest(): OncePerRequest {
  const kept = new Map<string, Promise<unknown>>();
  return <T>(key: string, make: () => Promise<T>): Promise<T> => {
    let answer = kept.get(key) as Promise<T> | undefined;
    if (!answer) {
      answer = make();
      kept.set(key, answer);
    }
    return answer;
  };
}
