// Work two loaders of one request would each do (Remix runs a layout's loader beside its page's), done once.

/** The first answer for `key` in this request; later asks get the same promise (a rejection too). */
export type OncePerRequest = <T>(key: string, make: () => Promise<T>) => Promise<T>;

/** A fresh memo for one request; its map is made on the first ask, so a request that asks nothing pays nothing. */
export function oncePerRequest(): OncePerRequest {
  let kept: Map<string, Promise<unknown>> | undefined;
  return <T>(key: string, make: () => Promise<T>): Promise<T> => {
    kept ??= new Map();
    let answer = kept.get(key) as Promise<T> | undefined;
    if (!answer) {
      answer = make();
      kept.set(key, answer);
    }
    return answer;
  };
}
