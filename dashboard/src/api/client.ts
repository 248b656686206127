/** A request that reached the API but got an unusable answer (unexpected status or non-JSON body). */
export class ApiError extends Error {
  readonly status: number;

  constructor(message: string, status: number) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

interface GetJsonOptions {
  /** Non-2xx statuses whose JSON body is still a normal answer for this endpoint. */
  acceptStatuses?: readonly number[];
  signal?: AbortSignal;
}

/** GETs a same-origin API path and returns its JSON body, typed by the caller. */
export async function getJson<T>(
  path: string,
  { acceptStatuses = [], signal }: GetJsonOptions = {},
): Promise<T> {
  const response = await fetch(path, { headers: { Accept: 'application/json' }, signal });
  if (!response.ok && !acceptStatuses.includes(response.status)) {
    throw new ApiError(`GET ${path} failed with HTTP ${response.status}`, response.status);
  }
  try {
    return (await response.json()) as T;
  } catch {
    // A proxy or gateway can answer an accepted status (e.g. 503) with an HTML error page.
    throw new ApiError(
      `GET ${path} answered HTTP ${response.status} without a JSON body`,
      response.status,
    );
  }
}
