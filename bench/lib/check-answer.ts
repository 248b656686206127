/**
 * Fails the run unless a GET of `url` with the bearer `token` answers 200 with what the
 * benchmark expects to be measuring (a full page, the right record).
 */
// biome-ignore lint/suspicious/noExplicitAny: the checks read a few fields of the JSON answer
export async function checkAnswer(url: string, token: string, expect: (body: any) => boolean) {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  const body = await response.json();
  if (response.status !== 200 || !expect(body)) {
    throw new Error(`${url} answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
  }
}
