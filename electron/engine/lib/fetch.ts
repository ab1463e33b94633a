// The one fetch signature the engine injects (serve probes, checkpoint downloads, the validator's
// provider calls), so tests point any service at a double without a network.

export type FetchFn = (input: string, init?: RequestInit) => Promise<Response>;

export const defaultFetch: FetchFn = (input, init) => fetch(input, init);
