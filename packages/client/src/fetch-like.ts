/** The `fetch` the client uses (the global one by default). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;
