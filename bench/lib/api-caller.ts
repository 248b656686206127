/**
 * A JSON caller of the API at `apiUrl` as the holder of `token` (pass `auth` false for a public
 * route): answers the parsed body, and fails the run on any answer that is not 2xx.
 */
export function apiCaller(apiUrl: string, token: string) {
  // biome-ignore lint/suspicious/noExplicitAny: the benchmarks read a few fields of the answers
  return async (method: string, path: string, body?: unknown, auth = true): Promise<any> => {
    const response = await fetch(`${apiUrl}${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(auth && { authorization: `Bearer ${token}` }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await response.json();
    if (!response.ok) {
      throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
    }
    return answer;
  };
}
