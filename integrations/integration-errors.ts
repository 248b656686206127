/**
 * A third-party API (Discord, GitHub) refused or failed a grant's call. Recorded on the grant
 * (`error.type` is the name, `error.message` what the service said) while the activity retries.
 */
export class IntegrationError extends Error {
  override name: string;
  readonly status: number | undefined;

  constructor(service: 'Discord' | 'GitHub', message: string, status?: number) {
    super(message);
    this.name = `${service}ApiError`;
    this.status = status;
  }
}

/** Calls `url`; answers the response, or throws an IntegrationError for a network failure. */
export async function callIntegration(
  service: 'Discord' | 'GitHub',
  url: string,
  init: RequestInit,
): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(15_000) });
  } catch (error) {
    throw new IntegrationError(service, `${service} could not be reached: ${String(error)}`);
  }
}

/** The error a failed response stands for, with the service's own message when it sent one. */
export async function integrationFailure(
  service: 'Discord' | 'GitHub',
  action: string,
  response: Response,
): Promise<IntegrationError> {
  const text = await response.text();
  let detail = text;
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === 'string') detail = body.message;
  } catch {}
  return new IntegrationError(
    service,
    `${action} failed: ${response.status} ${detail}`.trim(),
    response.status,
  );
}
